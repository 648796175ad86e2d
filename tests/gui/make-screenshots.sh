#!/bin/bash
# SPDX-License-Identifier: MIT
# Takes the workbench's screenshots: the first-run welcome, the create dialog, the main window after the demo
# program ran (also at 1366x768), Inspect, the memory view, the file browser, the history dock, the network
# tab, Preferences, the Go/No-Go Audit (also at 1366x768, with a row's run opened), the user guide, the Demo
# menu and presentation mode (also at 1366x768). Starts a virtual X server and a
# private cordond (its own socket, data and settings directories, so nothing of yours is touched or shown),
# drives the real window with cordon-screenshot-tour, then stops both.
# Usage: tests/gui/make-screenshots.sh [BUILD_DIR [OUTPUT_DIR]]
#   BUILD_DIR defaults to build; OUTPUT_DIR to BUILD_DIR/screenshots. The documentation's pictures change only
#   when asked: tests/gui/make-screenshots.sh build docs/screenshots. Needs xvfb and imagemagick.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/screenshots}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tour=$build/bin/cordon-screenshot-tour
[ -x "$tour" ] || { echo "build cordon-screenshot-tour first: cmake --build $build --target cordon-screenshot-tour" >&2; exit 2; }
for tool in Xvfb:xvfb convert:imagemagick; do
    command -v "${tool%%:*}" >/dev/null || { echo "missing ${tool%%:*}: apt-get install ${tool##*:}" >&2; exit 2; }
done

private=$(mktemp -d /tmp/cordon-shots-XXXXXX)
export CORDON_SOCKET=$private/d.sock CORDON_DATA_DIR=$private/data XDG_CONFIG_HOME=$private/config
export CORDON_DAEMON=$build/bin/cordond
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
cleanup() {
    "$build/bin/cordon" daemon stop >/dev/null 2>&1 || true
    kill "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true
    rm -rf "$private"
}
trap cleanup EXIT
sleep 1

mkdir -p "$out"
shots=$private/shots
mkdir -p "$shots" "$private/dark"
DISPLAY=$display QT_QPA_PLATFORM=xcb "$tour" "$shots"
# Once more in a dark palette, with a fresh daemon and settings: the main window only goes into the docs.
"$build/bin/cordon" daemon stop >/dev/null 2>&1 || true
rm -rf "$CORDON_DATA_DIR" "$XDG_CONFIG_HOME"
DISPLAY=$display QT_QPA_PLATFORM=xcb "$tour" "$private/dark" --dark || mkdir -p "$private/dark"
[ -f "$private/dark/dark-main-window.png" ] && cp "$private/dark/dark-main-window.png" "$shots/"
# Small files for the repository: 8-bit palettes are exact for flat UI colours and text stays crisp.
for png in "$shots"/*.png; do
    convert "$png" -strip +dither -colors 255 -define png:compression-level=9 "$out/$(basename "$png")"
done
ls -l "$out"
