# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts that compare with bubblewrap: the one bwrap command line they all time,
# so that every comparison in docs/benchmarks.md is against the same peer.
#
# bwrap_peer_init fills the array `bwrap_cmd` with a command that mirrors the parts of cordon's mount plan
# that /bin/true needs: /usr read-only, the merged-/usr symlinks exactly as on the host, fresh /proc, a minimal
# /dev, a tmpfs /tmp, a few /etc files, every namespace unshared, a new session, a fixed hostname and an empty
# environment. `join WORDS...` prints them as one line for hyperfine -N, which splits on whitespace: none of
# the paths above contains a space.
# shellcheck shell=bash

bwrap_peer_init() {
    bwrap_cmd=(bwrap --unshare-all --die-with-parent --new-session --ro-bind /usr /usr)
    local dir file
    for dir in /bin /sbin /lib /lib32 /lib64 /libx32; do
        if [ -L "$dir" ]; then
            bwrap_cmd+=(--symlink "$(readlink "$dir")" "$dir")
        elif [ -d "$dir" ]; then
            bwrap_cmd+=(--ro-bind "$dir" "$dir")
        fi
    done
    bwrap_cmd+=(--proc /proc --dev /dev --tmpfs /tmp)
    for file in /etc/ld.so.cache /etc/ld.so.conf /etc/passwd /etc/group /etc/nsswitch.conf /etc/localtime; do
        [ -e "$file" ] && bwrap_cmd+=(--ro-bind "$file" "$file")
    done
    bwrap_cmd+=(--hostname sandbox --clearenv /bin/true)
}

join() {
    local IFS=' '
    echo "$*"
}
