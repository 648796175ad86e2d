#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs what Cordon needs to build, test and benchmark on Debian 12, and only what is missing (idempotent).
# Uses sudo when not run as root. Set CORDON_BOOTSTRAP_NO_UPDATE=1 to skip `apt-get update`.
set -euo pipefail

packages=(
    build-essential cmake pkg-config ninja-build
    qt6-base-dev qt6-base-dev-tools libqt6charts6-dev libqt6svg6-dev
    libqscintilla2-qt6-dev libseccomp-dev libsqlite3-dev libexpected-dev libhttp-parser-dev
    python3 curl openssl util-linux passwd procps clang libclang-rt-14-dev
    bubblewrap hyperfine xvfb xauth imagemagick dbus-daemon
)

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "bootstrap: all ${#packages[@]} packages are installed"
    exit 0
fi

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
echo "bootstrap: installing ${missing[*]}"
if [ "${CORDON_BOOTSTRAP_NO_UPDATE:-0}" != 1 ]; then
    "${sudo[@]}" apt-get update -qq
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
