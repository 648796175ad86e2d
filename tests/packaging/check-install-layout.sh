#!/bin/bash
# SPDX-License-Identifier: MIT
# `cmake --install` into a new prefix: every file the packages carry lands where packaging/debian/*.install
# and the FHS expect it, the desktop entry and the AppStream metainfo pass their validators, the units and the
# AppArmor profile name the installed programs, and the installed programs find each other there with no
# build tree around: `cordon` runs cordon-cli from libexec/cordon, a one-shot run starts
# libexec/cordon/cordon-init and copies its outputs out through libexec/cordon/cordon-artifact-export, and the
# full CLI starts bin/cordond.
#
# usage: check-install-layout.sh BUILD_DIR SOURCE_DIR
# Exits 77 (skip) when a validator is missing or the host cannot start a sandbox, unless CORDON_MUST_WORK=1.
set -uo pipefail
build=$1 source=$2

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
skip() {
    echo "SKIP: $*"
    [ "${CORDON_MUST_WORK:-0}" = 1 ] && exit 1
    # What already failed is not hidden behind a skip.
    [ "$failures" -eq 0 ] || exit 1
    exit 77
}

work=$(mktemp -d /tmp/cordon-install-XXXXXX)
trap 'CORDON_SOCKET=$work/cordond.sock "$work/usr/bin/cordon" daemon stop >/dev/null 2>&1; rm -rf "$work"' EXIT
# Readable by everyone, like /usr, so the sandbox's unprivileged inside user may exec cordon-init's children.
chmod 0755 "$work"
cmake --install "$build" --prefix "$work/usr" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; exit 1; }

# No installed program can have a guarantee removed: the switch that the test daemon cordond-weakened reads
# (engine/sandbox/weakening.h) is linked into no shipped program, and cordond-weakened is not installed.
while IFS= read -r -d '' program; do
    if grep -q CORDON_TEST_WEAKEN "$program"; then fail "$program holds the test switch CORDON_TEST_WEAKEN"; fi
done < <(find "$work/usr" -type f -perm -u+x -print0)
[ ! -e "$work/usr/bin/cordond-weakened" ] || fail "cordond-weakened is installed"

# Every line of the two .install files matches something installed, and nothing installed is left out of
# them (dh_missing --fail-missing would stop the package build).
declare -A claimed=()
for list in "$source"/packaging/debian/cordon.install "$source"/packaging/debian/cordon-workbench.install; do
    while read -r entry; do
        [ -n "$entry" ] || continue
        [ -e "$work/$entry" ] || fail "$(basename "$list"): $entry is not installed"
        claimed[$entry]=1
    done <"$list"
done
while read -r file; do
    relative=${file#"$work"/}
    covered=0
    for entry in "${!claimed[@]}"; do
        case "$relative" in "$entry" | "${entry%/}"/*) covered=1 ;; esac
    done
    [ "$covered" = 1 ] || fail "installed but in no package: $relative"
done < <(find "$work/usr" -type f -o -type l)

for program in bin/cordon bin/cordond bin/cordon-workbench libexec/cordon/cordon-cli \
    libexec/cordon/cordon-init libexec/cordon/cordon-secret-reader libexec/cordon/cordon-artifact-export \
    libexec/cordon/cordon-audit-probe; do
    [ -x "$work/usr/$program" ] || fail "usr/$program is not an installed program"
done
for size in 16 22 24 32 48 64 128 256 512; do
    icon="$work/usr/share/icons/hicolor/${size}x${size}/apps/org.cordon.workbench.png"
    [ "$(file -b "$icon" 2>/dev/null | cut -d, -f2 | tr -d ' ')" = "${size}x${size}" ] || fail "$icon is not ${size}x${size}"
done

# The units and the profile name the programs by the paths of the configured prefix (CMAKE_INSTALL_PREFIX,
# /usr for the packages), with no placeholder left.
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
grep -rl '@[A-Z_]*@' "$work/usr/lib/systemd/user" "$work/usr/share/cordon/apparmor" && fail "a placeholder is left"
grep -qx "ExecStart=$prefix/bin/cordond" "$work/usr/lib/systemd/user/cordond.service" \
    || fail "cordond.service does not start $prefix/bin/cordond"
grep -q "= $prefix/bin/cordon .*$prefix/libexec/cordon/cordon-cli" "$work/usr/share/cordon/apparmor/cordon" \
    || fail "the AppArmor profile does not name $prefix/bin/cordon and $prefix/libexec/cordon/cordon-cli"

command -v desktop-file-validate >/dev/null || skip "desktop-file-validate is not installed (desktop-file-utils)"
command -v appstreamcli >/dev/null || skip "appstreamcli is not installed (appstream)"
# Clean means nothing at all: the validators print hints and warnings too, and exit 0 on them.
desktop=$(desktop-file-validate "$work/usr/share/applications/org.cordon.workbench.desktop" 2>&1)
[ -z "$desktop" ] || fail "desktop-file-validate: $desktop"
metainfo=$(appstreamcli validate --no-net --pedantic --no-color \
    "$work/usr/share/metainfo/org.cordon.workbench.metainfo.xml" 2>&1)
echo "$metainfo" | grep -q '^✔ Validation was successful\.$' || fail "appstreamcli validate: $metainfo"
grep -q '@[A-Z_]*@' "$work/usr/share/metainfo/org.cordon.workbench.metainfo.xml" && fail "metainfo placeholder left"

# The installed programs find each other, with no build tree on the way: copied out of it, and run from there.
export CORDON_SOCKET=$work/cordond.sock HOME=$work/home XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config
export XDG_RUNTIME_DIR=$work/runtime
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 0700 "$XDG_RUNTIME_DIR"
unset CORDON_INIT CORDON_DAEMON
version=$("$work/usr/bin/cordon" --version 2>&1) || fail "cordon --version (through libexec/cordon/cordon-cli): $version"
[[ "$version" == cordon\ * ]] || fail "cordon --version printed: $version"

probe=$("$work/usr/bin/cordon" run --allow-degraded -- /bin/sh -c 'echo inside' 2>"$work/run.err")
status=$?
if [ $status -ne 0 ] && grep -qi "user namespace" "$work/run.err"; then
    skip "this host cannot start a sandbox: $(cat "$work/run.err")"
fi
[ "$probe" = inside ] || fail "cordon run (the launcher, libexec/cordon/cordon-init): status $status: $probe $(cat "$work/run.err")"
json=$("$work/usr/bin/cordon" run --allow-degraded --json -- /bin/true 2>&1)
echo "$json" | grep -q '"error_class": *"ok"' || fail "cordon run --json (the launcher): $json"
# Outputs leave through the artifact scan's helper, libexec/cordon/cordon-artifact-export.
copied=$("$work/usr/bin/cordon" run --allow-degraded --output-dir "$work/outputs" -- /bin/sh -c \
    'echo result > /mnt/data/outputs/result.txt' 2>&1)
[ "$(cat "$work/outputs/result.txt" 2>/dev/null)" = result ] \
    || fail "cordon run --output-dir (libexec/cordon/cordon-artifact-export): $copied"
ls=$("$work/usr/bin/cordon" ls 2>&1) || fail "cordon ls (starts bin/cordond): $ls"
daemon=$(pgrep -u "$(id -u)" -x cordond -a | grep -F " $work/usr/bin/cordond" | head -1)
[ -n "$daemon" ] || fail "no cordond from $work/usr/bin runs after cordon ls"

if [ $failures -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "install layout: every check passed"
