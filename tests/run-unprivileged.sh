#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs one test binary as an unprivileged user, because users run Cordon unprivileged.
#   run-unprivileged.sh BIN_DIR TEST_NAME [ARGS...]
# As root: creates the user `cordon-test` if needed, delegates a cgroup subtree to it with
# `cordon cgroup-delegate` (the documented root step), copies the built programs to a directory that user can
# read (the build tree may sit below a 0700 home), and runs the test there with a clean environment.
# Not root: the caller already is unprivileged, so the test simply runs.
# Exit 77 (skip) when it cannot be arranged, unless CORDON_MUST_WORK=1 makes that a failure.
set -u
bin_dir=$1 test_name=$2
shift 2

skip() {
    echo "run-unprivileged: $*" >&2
    [ "${CORDON_MUST_WORK:-0}" = 1 ] && exit 1
    exit 77
}

if [ "$(id -u)" != 0 ]; then
    exec "$bin_dir/$test_name" "$@"
fi

user=cordon-test
if ! id -u "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$user" || skip "cannot create user $user"
fi
"$bin_dir/cordon" cgroup-delegate --user "$user" >/dev/null || echo "run-unprivileged: no cgroup delegation" >&2

work=$(mktemp -d /tmp/cordon-unpriv.XXXXXX) || skip "mktemp failed"
trap 'rm -rf "$work"' EXIT
# `cordon` is a launcher that runs the full CLI, cordon-cli, from beside itself.
cp "$bin_dir/$test_name" "$bin_dir/cordon-init" "$bin_dir/cordon" "$bin_dir/cordon-cli" \
    "$bin_dir/cordond" "$bin_dir/cordon-probe" "$bin_dir/cordon-secret-reader" \
    "$bin_dir/cordon-artifact-export" "$bin_dir/cordon-audit-probe" "$work/"
# The daemon with removable guarantees, where the tests built it (tst_audit).
[ -x "$bin_dir/cordond-weakened" ] && cp "$bin_dir/cordond-weakened" "$work/"
# cordon-init of another protocol version, where the tests built it (tst_daemonupgrade).
[ -x "$bin_dir/cordon-init-older" ] && cp "$bin_dir/cordon-init-older" "$work/"
mkdir "$work/home"
chown -R "$user:" "$work"
chmod 0755 "$work"

uid=$(id -u "$user")
runtime="$work/runtime"
mkdir -m 0700 "$runtime" && chown "$user:" "$runtime"
cd "$work" || skip "cd failed"
setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups --inh-caps=-all --bounding-set=-all \
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$work/home" XDG_RUNTIME_DIR="$runtime" \
    QT_QPA_PLATFORM=offscreen CORDON_MUST_WORK="${CORDON_MUST_WORK:-0}" \
    CORDON_CRASH_CYCLES="${CORDON_CRASH_CYCLES:-}" \
    "$work/$test_name" "$@"
