#!/bin/bash
# SPDX-License-Identifier: MIT
# The install test: the .debs installed with `apt-get install ./*.deb` on a new minimal Debian 12 root, and
# used there from /usr/bin as a user of the package would, as root and as an unprivileged user.
#
#   packaging/install-check.sh DEBDIR [--base-root DIR] [--keep]
#
# DEBDIR holds cordon_*.deb and cordon-workbench_*.deb (packaging/build-deb.sh, or fresh-check.sh --debs).
# The root is made like fresh-check.sh's (packaging/lib/freshroot.sh), with /proc, /sys and /dev bound in so
# that namespaces and cgroups work. Needs root.
set -euo pipefail
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
source "$top/packaging/lib/freshroot.sh"

debs="" keep=0 base=""
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=1 ;;
        --base-root) base=${2:?--base-root needs a directory}; shift ;;
        -h | --help) echo "usage: packaging/install-check.sh DEBDIR [--base-root DIR] [--keep]"; exit 0 ;;
        -*) echo "install-check: unknown option '$1'" >&2; exit 2 ;;
        *) debs=$1 ;;
    esac
    shift
done
[ -n "$debs" ] || { echo "usage: packaging/install-check.sh DEBDIR [--base-root DIR] [--keep]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "install-check: run it as root" >&2; exit 2; }
shopt -s nullglob
packages=("$debs"/cordon_*.deb "$debs"/cordon-workbench_*.deb)
[ ${#packages[@]} -eq 2 ] || { echo "install-check: $debs needs one cordon and one cordon-workbench .deb" >&2; exit 1; }

started=$SECONDS
use_root install-check "$base" "$keep"
root=$ROOT
mkdir -p "$root/root/debs"
cp "${packages[@]}" "$root/root/debs/"

# Each check prints what it checks; the first that fails ends the script with its status.
run_in_root "$root" '
set -x
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Recommends stay out: Depends alone must be enough to run. man-db and the shells are what a user reading
# the manual or completing in bash, zsh and fish has; passwd gives useradd for the unprivileged user.
apt-get install -y -qq --no-install-recommends ./root/debs/*.deb
apt-get install -y -qq --no-install-recommends man-db bash-completion passwd desktop-file-utils appstream

# The layout: programs in /usr/bin, helpers in /usr/libexec/cordon, and they find each other there.
test -x /usr/bin/cordon && test -x /usr/bin/cordond && test -x /usr/bin/cordon-workbench
for helper in cordon-cli cordon-init cordon-secret-reader cordon-artifact-export cordon-audit-probe; do test -x /usr/libexec/cordon/$helper; done
cordon --version
cordon --version | grep -q "^cordon 0"

# Manuals, completions, desktop integration, units, the AppArmor profile.
for page in cordon cordond cordon-workbench cordon-policy; do
    MANWIDTH=80 man -P cat "$page" | grep -qi cordon
done
bash -c "source /usr/share/bash-completion/bash_completion; source /usr/share/bash-completion/completions/cordon; complete -p cordon"
test -s /usr/share/zsh/vendor-completions/_cordon
test -s /usr/share/fish/vendor_completions.d/cordon.fish
desktop-file-validate /usr/share/applications/org.cordon.workbench.desktop
appstreamcli validate --no-net /usr/share/metainfo/org.cordon.workbench.metainfo.xml
test -s /usr/share/icons/hicolor/scalable/apps/org.cordon.workbench.svg
test -s /usr/share/icons/hicolor/48x48/apps/org.cordon.workbench.png
test -s /usr/lib/systemd/user/cordond.service && test -s /usr/lib/systemd/user/cordond.socket
grep -q "/usr/bin/cordond" /usr/lib/systemd/user/cordond.service
grep -q "/usr/libexec/cordon/cordon-cli" /usr/share/cordon/apparmor/cordon

# Runs, as root: the launcher alone (a plain run and --json), and the full CLI with the daemon it
# starts from /usr/bin.
cordon doctor
cordon run -- true
cordon run --json -- sh -c "echo hello" | grep -q "\"error_class\": *\"ok\""
id=$(cordon create --memory 1g)
cordon exec "$id" -- sh -c "echo kept > /mnt/data/x"
test "$(cordon exec "$id" -- cat /mnt/data/x)" = kept
cordon rm --force "$id"
cordon daemon stop

# And as a normal user, as the package is meant to be used, after the README'"'"'s one root step on a host
# without systemd'"'"'s delegation; the run is not degraded and gets its memory limit.
useradd --create-home cordon-user
cordon cgroup-delegate --user cordon-user
runuser -u cordon-user -- cordon --version
runuser -u cordon-user -- cordon doctor
test "$(runuser -u cordon-user -- cordon run --memory 1g -- sh -c "echo \$(id -u)")" = 1000
runuser -u cordon-user -- cordon run --memory 1g --json -- true > /tmp/run.json
grep -q "\"memory_limit_bytes\": *1073741824" /tmp/run.json && grep -q "\"degraded\": *false" /tmp/run.json
QT_QPA_PLATFORM=offscreen CORDON_WORKBENCH_BENCH=quit timeout 120 cordon-workbench | grep "cordon-workbench interactive"
cordon daemon stop
'
echo "install-check: passed in $((SECONDS - started)) s"
