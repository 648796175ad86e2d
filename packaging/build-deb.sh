#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages the Debian way (debhelper, `dpkg-buildpackage -us -uc -b`) and checks them with
# lintian, from a clean export of the checkout: its committed files, with uncommitted changes to them (or,
# outside a git checkout, the tree as it is, without its build folders).
#
# packaging/debian/ is copied to debian/ in that export only, so the source's top level stays as the design
# card names it. Build dependencies: `packaging/bootstrap.sh` (they are packaging/debian/control's).
#
#   packaging/build-deb.sh [OUTDIR]      # default: build-deb/ in the checkout
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/packaging/lib/freshroot.sh"
out=$(realpath -m "${1:-$top/build-deb}")

version=$(dpkg-parsechangelog -l "$top/packaging/debian/changelog" -S Version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source_dir="$work/cordon-$version"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    copy_checkout "$top" "$source_dir"
else
    # An exported tree without git (fresh-check.sh's): all of it but the build folders.
    mkdir -p "$source_dir"
    tar -C "$top" --exclude='./build*' -c . | tar -x -C "$source_dir"
fi
cp -a "$source_dir/packaging/debian" "$source_dir/debian"

# terse: the compiler's command lines are thousands of lines that hide what matters in a CI log.
(cd "$source_dir" && DEB_BUILD_OPTIONS="terse ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b)

mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
cp "$work"/*.ddeb "$out"/ 2>/dev/null || true
# Errors fail the build; every warning is fixed or explained in a lintian-overrides file beside the package.
if command -v lintian >/dev/null; then
    lintian --fail-on error,warning --info "$out"/*.changes
else
    echo "build-deb: lintian is not installed (packaging/bootstrap.sh --dev installs it); not checked" >&2
fi
ls -l "$out"
