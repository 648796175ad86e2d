#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages the Debian way (debhelper, `dpkg-buildpackage -us -uc -b`) and checks them with
# lintian, from a clean export of the checkout: its committed files, with uncommitted changes to them.
#
# packaging/debian/ is copied to debian/ in that export only, so the source's top level stays as the design
# card names it. Build dependencies: `packaging/bootstrap.sh` (they are packaging/debian/control's).
#
#   packaging/build-deb.sh [OUTDIR]      # default: build-deb/ in the checkout
set -euo pipefail
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
source "$top/packaging/lib/freshroot.sh"
out=$(realpath -m "${1:-$top/build-deb}")

version=$(dpkg-parsechangelog -l "$top/packaging/debian/changelog" -S Version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source_dir="$work/cordon-$version"
copy_checkout "$top" "$source_dir"
cp -a "$source_dir/packaging/debian" "$source_dir/debian"

(cd "$source_dir" && dpkg-buildpackage -us -uc -b)

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
