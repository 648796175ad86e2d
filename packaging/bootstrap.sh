#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs what Cordon needs to build and test on Debian 12, and only what is missing (idempotent).
#
# The one list is packaging/debian/control: its Build-Depends are installed with `apt-get build-dep`, so the
# package build, this script and the fresh-machine check (packaging/fresh-check.sh) can never disagree.
# --dev adds the tools of the developers' own checks, which no build needs: benchmarks against bubblewrap,
# screenshots under Xvfb, the libFuzzer targets, and the package and fresh-machine checks.
#
# Uses sudo when not run as root. Set CORDON_BOOTSTRAP_NO_UPDATE=1 to skip `apt-get update`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

dev_tools=(
    bubblewrap hyperfine python3                      # bench/
    xvfb xauth imagemagick openbox                    # tests/gui/make-screenshots.sh, ../shared/tools
    clang libclang-rt-14-dev                          # tests/fuzz
    mmdebstrap dpkg-dev lintian desktop-file-utils appstream man-db   # packaging/*.sh
)

with_dev=0
case "${1:-}" in
    "") ;;
    --dev) with_dev=1 ;;
    -h | --help)
        echo "usage: packaging/bootstrap.sh [--dev]"
        echo "  installs the Build-Depends of packaging/debian/control; --dev also the developers' tools"
        exit 0 ;;
    *) echo "bootstrap: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

build_deps_ok() {
    command -v dpkg-checkbuilddeps >/dev/null && dpkg-checkbuilddeps "$here/debian/control" 2>/dev/null
}

missing_dev=()
if [ "$with_dev" = 1 ]; then
    for package in "${dev_tools[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
        [ "$status" = "install ok installed" ] || missing_dev+=("$package")
    done
fi

if build_deps_ok && [ ${#missing_dev[@]} -eq 0 ]; then
    what="every build dependency"
    [ "$with_dev" = 0 ] || what+=" and developer tool"
    echo "bootstrap: $what is installed"
    exit 0
fi

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq --no-install-recommends)
if [ "${CORDON_BOOTSTRAP_NO_UPDATE:-0}" != 1 ]; then
    "${sudo[@]}" apt-get update -qq
fi
# Recommends stay out on purpose: a dependency that only arrives as another package's recommendation is
# missing from the control file, and a fresh machine with --no-install-recommends would show it.
echo "bootstrap: installing the Build-Depends of packaging/debian/control"
"${apt[@]}" build-dep "$here"
if [ ${#missing_dev[@]} -gt 0 ]; then
    echo "bootstrap: installing ${missing_dev[*]}"
    "${apt[@]}" install "${missing_dev[@]}"
fi
build_deps_ok || { echo "bootstrap: dpkg-checkbuilddeps still finds unmet build dependencies" >&2; exit 1; }
