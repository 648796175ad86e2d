# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts: a private cordond on its own socket and data directory, so that a
# benchmark never touches the user's daemon or history, and everything it started is gone when it exits.
#
# The caller sets `bin_dir` (with cordon and cordond) and defines `die MESSAGE`, then calls
# `private_daemon_init PREFIX`, which creates $work (under /tmp: the socket path must fit in sun_path) and
# installs an EXIT trap that deletes the containers in $created, stops the daemon and removes $work.
# shellcheck shell=bash

private_daemon_init() { # temp-dir-prefix
    work=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 0755 "$work"
    mkdir -m 0700 "$work/run" "$work/data"
    export CORDON_DATA_DIR=$work/data
    export CORDON_SOCKET=$work/run/cordond.sock
    # Nothing may start a second daemon behind our back: a missing program makes the CLI fail instead.
    export CORDON_DAEMON=$work/no-such-cordond
    cordon=$bin_dir/cordon
    daemon_pid=""
    created=() # containers this script created and has not deleted yet
    trap private_daemon_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}

# Running, and not a zombie: the daemon is our child, so after it exits it stays a zombie until we wait for it.
daemon_alive() {
    local stat
    [ -n "$daemon_pid" ] && stat=$(cat "/proc/$daemon_pid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

stop_daemon() {
    daemon_alive || return 0
    [ ${#created[@]} -eq 0 ] || "$cordon" rm --force "${created[@]}" >/dev/null 2>&1
    created=()
    "$cordon" daemon stop >/dev/null 2>&1
    for _ in $(seq 50); do
        daemon_alive || break
        sleep 0.1
    done
    # Only the daemon this script started, by its pid.
    daemon_alive && kill "$daemon_pid" 2>/dev/null
    wait "$daemon_pid" 2>/dev/null
    daemon_pid=""
}

# shellcheck disable=SC2317 # invoked through the EXIT trap
private_daemon_cleanup() {
    set +e
    # A hook for what the caller started besides the daemon (windows, X servers).
    declare -F before_daemon_cleanup >/dev/null && before_daemon_cleanup
    stop_daemon
    rm -rf "$work"
}

start_daemon() { # [cordond options...]
    "$bin_dir/cordond" "$@" </dev/null >"$work/cordond.log" 2>&1 &
    daemon_pid=$!
    local i
    for i in $(seq 100); do
        daemon_alive || { cat "$work/cordond.log" >&2; die "cordond exited while starting"; }
        "$cordon" daemon status >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    cat "$work/cordond.log" >&2
    die "cordond did not answer on $CORDON_SOCKET within 5 s"
}

create_containers() { # count name-prefix [cordon create options...]
    local i id count=$1 prefix=$2
    shift 2
    # Numbered on from the containers made so far: names are unique among live containers, and a second call
    # (10 idle containers, then 40 more to reach 50) must not reuse the first call's names.
    for ((i = 0; i < count; i++)); do
        id=$("$cordon" create --name "$prefix-${#created[@]}" "$@") || die "cordon create failed (see $work/cordond.log)"
        created+=("$id")
    done
}

delete_all() {
    [ ${#created[@]} -eq 0 ] || "$cordon" rm --force "${created[@]}" >/dev/null || die "cordon rm failed"
    created=()
}
