# SPDX-License-Identifier: MIT
# Sourced by packaging/fresh-check.sh and packaging/install-check.sh: a new minimal Debian 12 root, and a way
# to run a command in it as on a machine of its own.

# Every apt source the host uses (one-line and deb822 files), so the root sees the same mirrors and snapshots.
host_apt_sources() {
    local file
    [ -s /etc/apt/sources.list ] && echo /etc/apt/sources.list
    for file in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -s "$file" ] && echo "$file"
    done
    return 0
}

# make_fresh_root DIR: the `apt` variant, Essential packages and apt, nothing else: what
# `mmdebstrap --variant=apt bookworm` makes, as a new user's minimal Debian 12 would be.
make_fresh_root() {
    local root=$1
    local sources
    mapfile -t sources < <(host_apt_sources)
    [ ${#sources[@]} -gt 0 ] || { echo "fresh root: the host has no apt sources" >&2; return 1; }
    echo "fresh root: mmdebstrap --variant=apt bookworm $root (sources: ${sources[*]})"
    mmdebstrap --variant=apt --quiet bookworm "$root" "${sources[@]}"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# use_root NAME BASE KEEP: sets ROOT to a new root for the check NAME under /var/tmp, a copy of BASE (a root
# made earlier by make_fresh_root) when BASE is set, else a new one; it goes when the script exits, unless
# KEEP is 1.
use_root() {
    local name=$1 base=$2
    ROOT=$(mktemp -d "/var/tmp/cordon-$name.XXXXXX")
    ROOT_KEEP=$3 ROOT_NAME=$name
    trap 'if [ "$ROOT_KEEP" = 1 ]; then echo "$ROOT_NAME: the root is kept at $ROOT"; else rm -rf "$ROOT"; fi' EXIT
    if [ -n "$base" ]; then
        rmdir "$ROOT" && cp -a "$base" "$ROOT"
    else
        make_fresh_root "$ROOT"
    fi
}

# run_in_root DIR COMMAND: runs COMMAND with bash as root in DIR, with the host's /proc, /sys and /dev bound in.
# The root becomes the root of a new mount namespace by pivot_root, not by chroot: the kernel refuses a new
# user namespace to a chrooted process (EPERM from unshare(CLONE_NEWUSER)), and Cordon's sandboxes need one.
# The binds go when the namespace does, so nothing is left mounted on the host.
run_in_root() {
    local root=$1
    shift
    unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
        root=$1; shift
        mount --bind "$root" "$root"
        for fs in proc sys dev; do mkdir -p "$root/$fs" && mount --rbind "/$fs" "$root/$fs"; done
        mkdir -p "$root/.host"
        cd "$root"
        pivot_root . .host
        # The minimal root has no umount (package mount is not Essential): the host'"'"'s, run by its own loader.
        host=/.host
        "$host/lib64/ld-linux-x86-64.so.2" --library-path "$host/lib/x86_64-linux-gnu:$host/usr/lib/x86_64-linux-gnu" \
            "$host/usr/bin/umount" -l "$host"
        rmdir "$host"
        cd /
        exec env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 CI="${CI:-}" \
            CORDON_MUST_WORK="${CORDON_MUST_WORK:-}" \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -euo pipefail -c "$1"
    ' freshroot "$root" "$@"
}

# copy_checkout TOP DIR: the checkout's committed files, with uncommitted changes to them (git stash create
# makes a commit of those without touching the work tree); untracked files stay out, as from a clone.
copy_checkout() {
    local top=$1 destination=$2
    local revision
    revision=$(git -C "$top" stash create 2>/dev/null || true)
    mkdir -p "$destination"
    git -C "$top" archive "${revision:-HEAD}" | tar -x -C "$destination"
}
