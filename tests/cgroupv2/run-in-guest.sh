#!/bin/bash
# SPDX-License-Identifier: MIT
# The cgroup v2 suite in a virtual machine: most users' hosts mount only the unified hierarchy, these
# development machines a hybrid v1 one, so the engine's v2 code (memory.max, pids.max, memory.peak,
# memory.events oom_kill, cgroup.kill, delegation) runs for real only here.
#
#   tests/cgroupv2/run-in-guest.sh [BIN_DIR] [--keep]
#
# Makes a Debian 12 root with mmdebstrap (the host's apt sources; a kernel, systemd and the run-time
# libraries of the test programs), copies BIN_DIR in, turns it into an ext4 image with `mkfs.ext4 -d` (no
# loop mount) and boots it with its own kernel and initrd under qemu TCG (nested KVM stalls on these
# machines). In the guest, a systemd unit runs the focused subset with CORDON_MUST_WORK=1: as root, and as
# an unprivileged user in a systemd-delegated cgroup (a transient unit with Delegate=yes). Results come back
# on the serial console; the script exits 0 only when every program passed in both modes.
#
# Needs root, mmdebstrap, qemu-system-x86_64, about 4 GB in /var/tmp and 15-30 minutes on 2 cores.
set -euo pipefail
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
source "$top/packaging/lib/freshroot.sh"
bin=$(realpath "${1:-$top/build/bin}")
keep=0
[ "${2:-}" = --keep ] && keep=1
[ "$(id -u)" = 0 ] || { echo "cgroupv2: run it as root (mmdebstrap needs it)" >&2; exit 2; }
for tool in mmdebstrap qemu-system-x86_64 mkfs.ext4 debugfs; do
    command -v "$tool" > /dev/null || { echo "cgroupv2: $tool is missing (apt-get install mmdebstrap qemu-system-x86 e2fsprogs)" >&2; exit 2; }
done

# The programs of the subset (the cgroup backends; the limits of one-shot runs: oom, pids, peak memory; and of
# daemon containers: memory sampling, OOM-kill counting, idle expiry removing the cgroup) and what the
# engine needs beside them.
programs="tst_cgroup tst_runs tst_plainrun tst_daemon"
work=$(mktemp -d /var/tmp/cordon-cgroupv2.XXXXXX)
trap 'if [ $keep = 1 ]; then echo "cgroupv2: kept $work"; else rm -rf "$work"; fi' EXIT
root=$work/root
mapfile -t sources < <(host_apt_sources)
packages=linux-image-amd64,systemd-sysv,udev,dbus,procps,util-linux,python3
# The programs' run-time libraries, from the packages that hold them on this host: a list kept by hand
# missed libssl3 and libcsv3 once they were linked, and the daemon could not start in the guest.
for file in $programs cordon-cli cordond; do
    ldd "$bin/$file" | awk '/=> \// { print $3 }'
done | sort -u | while read -r library; do
    dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
done | cut -d: -f1 | sort -u > "$work/library-packages"
[ -s "$work/library-packages" ] || { echo "cgroupv2: could not find the programs' library packages (dpkg -S)" >&2; exit 2; }
packages+=,$(paste -sd, "$work/library-packages")
# And those the engine loads at first use, which ldd cannot see (engine/crypto/libcryptoloader.h,
# engine/scan/libarchiveloader.h, engine/secretservice/libsecretloader.h): the package's Depends name them too.
packages+=,libssl3,libarchive13,libsecret-1-0
echo "cgroupv2: making the guest root"
mmdebstrap --variant=apt --quiet --include="$packages" \
    --customize-hook='chroot "$1" useradd --create-home --uid 1000 --shell /bin/bash tester' \
    bookworm "$root" "${sources[@]}"

mkdir -p "$root/opt/cordon/bin"
for file in $programs cordon cordon-cli cordon-init cordond cordon-probe; do
    [ -e "$bin/$file" ] && cp -a "$bin/$file" "$root/opt/cordon/bin/"
done
cat > "$root/opt/cordon/run-tests.sh" << 'GUEST'
#!/bin/bash
# In the guest: each program as root, then as tester in a delegated cgroup; a result line per run, on the
# console and in results.log (read back from the image with debugfs).
exec > >(tee /opt/cordon/results.log > /dev/ttyS0) 2>&1
echo "CGV2-HIERARCHY $(stat -fc %T /sys/fs/cgroup)"
cd /opt/cordon/bin
for program in PROGRAMS; do
    CORDON_MUST_WORK=1 QT_QPA_PLATFORM=offscreen timeout 1200 ./$program > /tmp/$program.root.log 2>&1
    status=$?
    grep -E "^(FAIL|SKIP)|Totals" /tmp/$program.root.log | sed "s/^/CGV2-LOG $program root: /"
    echo "CGV2-RESULT $program root $status"
    # The program is the unit's only process (RuntimeMaxSec, not a timeout wrapper): the engine moves
    # itself into a leaf of the delegated cgroup, which must hold no other process to pass controllers on.
    systemd-run --quiet --wait --pipe --uid=tester --gid=tester -p Delegate=yes -p RuntimeMaxSec=1200 \
        -E CORDON_MUST_WORK=1 -E QT_QPA_PLATFORM=offscreen -E HOME=/home/tester \
        -p WorkingDirectory=/opt/cordon/bin /opt/cordon/bin/$program > /tmp/$program.user.log 2>&1
    status=$?
    grep -E "^(FAIL|SKIP)|Totals" /tmp/$program.user.log | sed "s/^/CGV2-LOG $program user: /"
    [ $status = 0 ] || tail -n 5 /tmp/$program.user.log | sed "s/^/CGV2-LOG $program user tail: /"
    echo "CGV2-RESULT $program user $status"
done
echo "CGV2-DONE"
sync
systemctl poweroff
GUEST
sed -i "s/PROGRAMS/$programs/" "$root/opt/cordon/run-tests.sh"
chmod +x "$root/opt/cordon/run-tests.sh"
cat > "$root/etc/systemd/system/cordon-cgroupv2.service" << 'UNIT'
[Unit]
Description=Cordon's cgroup v2 suite
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/opt/cordon/run-tests.sh
[Install]
WantedBy=multi-user.target
UNIT
ln -s /etc/systemd/system/cordon-cgroupv2.service "$root/etc/systemd/system/multi-user.target.wants/"
echo "/dev/vda / ext4 defaults 0 1" > "$root/etc/fstab"
# A getty on the console would hang it up (vhangup) under the suite's output.
ln -s /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"

kernel=$(ls "$root"/boot/vmlinuz-* | head -1)
initrd=$(ls "$root"/boot/initrd.img-* | head -1)
cp "$kernel" "$work/vmlinuz"
cp "$initrd" "$work/initrd"
echo "cgroupv2: making the disk image"
mkfs.ext4 -q -F -L cordon -d "$root" "$work/disk.img" 6G
rm -rf "$root"

echo "cgroupv2: booting (qemu TCG); the serial console goes to $work/serial.log"
timeout 3600 qemu-system-x86_64 -accel tcg -m 3072 -smp 2 -nographic -no-reboot \
    -kernel "$work/vmlinuz" -initrd "$work/initrd" \
    -append "root=/dev/vda rw console=ttyS0 systemd.unified_cgroup_hierarchy=1 quiet" \
    -drive "file=$work/disk.img,format=raw,if=virtio" > "$work/serial.log" 2>&1 || true
# The suite's own record, from the image (debugfs reads ext4 without mounting it).
debugfs -R "cat /opt/cordon/results.log" "$work/disk.img" > "$work/results.log" 2> /dev/null || true
grep -a "CGV2-" "$work/results.log" || true
grep -aq "CGV2-HIERARCHY cgroup2fs" "$work/results.log" || { echo "cgroupv2: the guest did not run on a pure cgroup v2 hierarchy" >&2; keep=1; exit 1; }
grep -aq "CGV2-DONE" "$work/results.log" || { echo "cgroupv2: the guest did not finish the suite" >&2; keep=1; exit 1; }
failed=$(grep -a "CGV2-RESULT" "$work/results.log" | awk '$4 != 0' || true)
if [ -n "$failed" ]; then
    echo "cgroupv2: failed:" >&2
    echo "$failed" >&2
    keep=1
    exit 1
fi
echo "cgroupv2: every program passed as root and as a delegated user"
