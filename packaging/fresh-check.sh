#!/bin/bash
# SPDX-License-Identifier: MIT
# The fresh-machine check: the README's set-up command on a new minimal Debian 12, as a new user meets it.
#
# Makes a root with `mmdebstrap --variant=apt bookworm` from the host's apt sources, copies the checkout in
# (its committed files, with uncommitted changes to them), and runs there, as root:
#   1. the README's set-up command, read from README.md itself: bootstrap, configure, build, and the
#      workbench started offscreen until it has shown its window and connected to the daemon it started;
#   2. with --tests, the README's test command, also read from README.md;
#   3. with --debs DIR, packaging/build-deb.sh in the same root, the .debs copied to DIR (that proves the
#      package build's Build-Depends on a clean machine too).
# A package missing from packaging/debian/control fails step 1 or 3, and this script exits non-zero.
#
# Needs root (mmdebstrap, and a mount namespace for the binds), mmdebstrap, git, unshare; about 3 GB in
# /var/tmp. --keep leaves the root for a look inside (its path is printed).
set -euo pipefail
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
source "$top/packaging/lib/freshroot.sh"

usage() {
    echo "usage: packaging/fresh-check.sh [--tests] [--debs DIR] [--base-root DIR] [--keep]"
    echo "  --tests          also run the README's test command in the fresh root"
    echo "  --debs DIR       also build the .debs there and copy them to DIR"
    echo "  --base-root DIR  copy this minimal root (made by an earlier make_fresh_root) instead of making one"
    echo "  --keep           do not delete the root afterwards"
}

with_tests=0 keep=0 debs="" base=""
while [ $# -gt 0 ]; do
    case "$1" in
        --tests) with_tests=1 ;;
        --keep) keep=1 ;;
        --debs) debs=$(realpath -m "${2:?--debs needs a directory}"); shift ;;
        --base-root) base=${2:?--base-root needs a directory}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "fresh-check: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "fresh-check: run it as root (mmdebstrap and the mount namespace need it)" >&2; exit 2; }

# The README's two commands, verbatim: if the README changes, this checks the new text.
readme_command() {
    grep -m1 -E "$1" "$top/README.md" || { echo "fresh-check: README.md has no line matching $1" >&2; exit 1; }
}
setup_command=$(readme_command '^packaging/bootstrap\.sh && .*build/bin/cordon-workbench$')
test_command=$(readme_command '^cmake -S \. -B build && .*ctest ')
# No display in the root: the workbench runs offscreen, and the bench probe quits it once the window is
# exposed and the daemon's snapshot applied. The daemon it started is stopped afterwards.
workbench='QT_QPA_PLATFORM=offscreen CORDON_WORKBENCH_BENCH=quit timeout 120 build/bin/cordon-workbench'
workbench+=' | grep "cordon-workbench interactive" && build/bin/cordon daemon stop'
setup_command=${setup_command%build/bin/cordon-workbench}$workbench

started=$SECONDS
use_root fresh-check "$base" "$keep"
root=$ROOT
copy_checkout "$top" "$root/root/cordon"
echo "fresh-check: root ready after $((SECONDS - started)) s"

step() {
    local name=$1 command=$2 begun=$SECONDS
    echo "fresh-check: $name: $command"
    run_in_root "$root" "cd /root/cordon && $command"
    echo "fresh-check: $name: passed in $((SECONDS - begun)) s"
}

step "set-up" "$setup_command"
[ "$with_tests" = 0 ] || step "tests" "$test_command"
if [ -n "$debs" ]; then
    step "package build" "packaging/build-deb.sh /root/debs"
    mkdir -p "$debs"
    cp "$root"/root/debs/* "$debs"/
    echo "fresh-check: the .debs are in $debs"
fi
echo "fresh-check: passed in $((SECONDS - started)) s"
