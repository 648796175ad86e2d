#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The workbench's two targets (docs/benchmarks.md): launch to an interactive window with 1,000 runs in the
# history (under 1 s), against a minimal Qt Widgets window measured in the same run; and the workbench's CPU
# use while 10 containers stream memory samples at 2 Hz (under 5% of one core).
#
#   bench/workbench-benchmarks.sh [BIN_DIR] [options]
#
# BIN_DIR holds the built cordon, cordond, cordon-init, cordon-workbench and qt-minimal-window (default:
# build/bin relative to the repository root). Starts its own cordond on a private socket and data directory,
# and its own X server (Xvfb) unless told to use the offscreen platform; installs nothing.
set -euo pipefail

usage() {
    cat <<'EOF2'
usage: bench/workbench-benchmarks.sh [BIN_DIR] [options]

  BIN_DIR             directory with cordon, cordond, cordon-init, cordon-workbench and qt-minimal-window

options:
  --history-runs N    runs recorded before the second launch pass (default 1000)
  --rounds N          launch rounds; the order of the cases rotates between rounds (default 3)
  --launches N        launches per case and round (default 5)
  --warmup N          warm-up launches per case (default 2)
  --containers N      running containers during the CPU measurement (default 10)
  --seconds S         length of the CPU measurement (default 60)
  --settle S          wait after the window is interactive before CPU is measured (default 5)
  --platform P        xvfb (default) or offscreen (QT_QPA_PLATFORM=offscreen, no X server)
  --out DIR           keep launch-*.json, cpu.json and report.md in DIR (default: a temp dir, removed)
  --check             exit 1 when a target is missed
  --quick             smoke run: --history-runs 100 --rounds 1 --launches 3 --warmup 1 --seconds 10 --settle 2
  -h, --help          this text
EOF2
}

die() {
    echo "workbench-benchmarks: $*" >&2
    exit 2
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=build/bin
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    bin_dir=$1
    shift
fi
history_runs=1000 rounds=3 launches=5 warmup=2 containers=10 seconds=60 settle=5 platform=xvfb
out_dir="" check=0
while [ $# -gt 0 ]; do
    case $1 in
    --history-runs) history_runs=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --launches) launches=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --containers) containers=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --settle) settle=${2:?}; shift 2 ;;
    --platform) platform=${2:?}; shift 2 ;;
    --out) out_dir=${2:?}; shift 2 ;;
    --check) check=1; shift ;;
    --quick) history_runs=100 rounds=1 launches=3 warmup=1 seconds=10 settle=2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument \`$1'" ;;
    esac
done
for n in "$history_runs" "$rounds" "$launches" "$warmup" "$containers" "$seconds" "$settle"; do
    [[ $n =~ ^[0-9]+$ ]] || die "not a whole number: $n"
done
[ "$containers" -ge 2 ] || die "--containers must be at least 2"
case $platform in xvfb | offscreen) ;; *) die "--platform is xvfb or offscreen" ;; esac

python=$(command -v python3 || true)
[ -n "$python" ] || die "missing: python3"
[ "$platform" = offscreen ] || command -v Xvfb >/dev/null 2>&1 ||
    die "missing: Xvfb (\`sudo apt-get install xvfb\`), or pass --platform offscreen"
if [ "${bin_dir#/}" = "$bin_dir" ] && [ ! -d "$bin_dir" ]; then
    bin_dir=$repo_root/$bin_dir
fi
[ -d "$bin_dir" ] || die "no such directory: $bin_dir (build first, or pass BIN_DIR)"
bin_dir=$(cd "$bin_dir" && pwd)
for program in cordon cordond cordon-init cordon-workbench qt-minimal-window; do
    [ -x "$bin_dir/$program" ] || die "$bin_dir/$program is missing: build it with \`cmake --build BUILD\`"
done

# shellcheck source=bench/lib/private-daemon.sh
. "$bench_dir/lib/private-daemon.sh"
private_daemon_init cordon-wbench
if [ -z "$out_dir" ]; then
    out_dir=$work/results
fi
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
helper=("$python" "$bench_dir/workbench-bench.py")

# The window's settings (geometry, dock state, code per container) start empty and are never saved: the
# benchmark's launches quit without closing the window.
export XDG_CONFIG_HOME=$work/config
mkdir -p "$XDG_CONFIG_HOME"
xvfb_pid="" workbench_pid=""
# shellcheck disable=SC2317 # called by private_daemon_cleanup
before_daemon_cleanup() {
    [ -z "$workbench_pid" ] || { kill "$workbench_pid" 2>/dev/null; wait "$workbench_pid" 2>/dev/null; }
    [ -z "$xvfb_pid" ] || { kill "$xvfb_pid" 2>/dev/null; wait "$xvfb_pid" 2>/dev/null; }
}
if [ "$platform" = xvfb ]; then
    Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 100); do
        [ -s "$work/display" ] && break
        sleep 0.05
    done
    [ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; die "Xvfb did not start"; }
    export DISPLAY=:$(head -1 "$work/display")
    export QT_QPA_PLATFORM=xcb
else
    export QT_QPA_PLATFORM=offscreen
fi

start_daemon --max-containers 64
create_containers 2 history

report=$out_dir/report.md
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

launch_pass() { # name
    "${helper[@]}" launch --rounds "$rounds" --runs "$launches" --warmup "$warmup" --json "$out_dir/launch-$1.json" \
        --case "qt-minimal-window" - "$bin_dir/qt-minimal-window" \
        --case "workbench, history dock closed" CORDON_WORKBENCH_BENCH=quit "$bin_dir/cordon-workbench" \
        --case "workbench, history dock open" CORDON_WORKBENCH_BENCH=quit,CORDON_WORKBENCH_BENCH_HISTORY=1 \
        "$bin_dir/cordon-workbench"
}

echo "workbench-benchmarks: launches with an empty history" >&2
launch_pass empty
echo "workbench-benchmarks: recording $history_runs runs" >&2
fill_start=$(date +%s%N)
"${helper[@]}" fill "${created[@]}" --runs "$history_runs"
fill_ms=$((($(date +%s%N) - fill_start) / 1000000))
total_runs=$("$cordon" history --json --limit 1 2>/dev/null | "$python" -c 'import json,sys; print(json.load(sys.stdin).get("total", "?"))' || echo "?")
echo "workbench-benchmarks: launches with $history_runs runs in the history" >&2
launch_pass full

echo "workbench-benchmarks: CPU with $containers running containers" >&2
create_containers $((containers - 2)) cpu
CORDON_WORKBENCH_BENCH=report "$bin_dir/cordon-workbench" >"$work/workbench.out" 2>"$work/workbench.err" &
workbench_pid=$!
for _ in $(seq 200); do
    grep -q interactive "$work/workbench.out" 2>/dev/null && break
    sleep 0.05
done
grep -q interactive "$work/workbench.out" || { cat "$work/workbench.err" >&2; die "the workbench did not become interactive"; }
sleep "$settle"
also=(--also "cordond=$daemon_pid")
[ -z "$xvfb_pid" ] || also+=(--also "Xvfb=$xvfb_pid")
samples_before=$(grep -o 'samples=[0-9]*' "$work/workbench.out" | tail -1 | cut -d= -f2 || true)
"${helper[@]}" cpu --pid "$workbench_pid" --seconds "$seconds" "${also[@]}" >"$out_dir/cpu.json"
samples_after=$(grep -o 'samples=[0-9]*' "$work/workbench.out" | tail -1 | cut -d= -f2 || true)
samples=$((${samples_after:-0} - ${samples_before:-0}))
kill "$workbench_pid"
wait "$workbench_pid" 2>/dev/null || true
workbench_pid=""
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

"$python" - "$out_dir" "$history_runs" "$total_runs" "$fill_ms" "$containers" "$seconds" "$platform" \
    "$load_start" "$load_end" "$check" "$samples" >"$report" <<'PY'
import json, os, platform, sys

out, runs, total, fill_ms, containers, seconds, qpa, load_start, load_end, check, samples = sys.argv[1:]
missed = []


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


print("### Workbench launch and CPU\n")
print(f"- {os.cpu_count()} CPUs ({cpu_model()}), kernel {platform.release()}, platform plugin "
      f"{'xcb on Xvfb 1920x1080x24' if qpa == 'xvfb' else 'offscreen'}")
print(f"- load average at start {load_start}, at end {load_end}")
print(f"- history: {runs} runs recorded in {int(fill_ms) / 1000:.1f} s (run.exec + run.wait of `/bin/sh -c`), "
      f"`cordon history` total {total}\n")
print("| history | case | launches | median | min | max | median / qt-minimal-window | target |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
phases = []
for name, title in (("empty", "empty"), ("full", f"{runs} runs")):
    cases = json.load(open(os.path.join(out, f"launch-{name}.json")))
    peer = next(c for c in cases if c["label"] == "qt-minimal-window")["median_ms"]
    for case in cases:
        target = ""
        if name == "full" and case["label"].startswith("workbench"):
            met = case["median_ms"] < 1000
            target = "< 1 s: **met**" if met else "< 1 s: **missed**"
            if not met:
                missed.append(case["label"])
        print(f"| {title} | {case['label']} | {case['runs']} | {case['median_ms']:.1f} ms | {case['min_ms']:.1f} ms "
              f"| {case['max_ms']:.1f} ms | {case['median_ms'] / peer:.2f}x | {target} |")
        if case["phase_medians_ms"]:
            phases.append((title, case["label"], case["phase_medians_ms"]))
print("\nMedian time from the fork to each step (ms):\n")
names = ["main", "shown", "exposed", "connected", "subscribed", "history"]
print("| history | case | " + " | ".join(names) + " |")
print("| --- | --- |" + " ---: |" * len(names))
for title, label, p in phases:
    print(f"| {title} | {label} | " + " | ".join(f"{p[n]:.1f}" if n in p else "" for n in names) + " |")
cpu = json.load(open(os.path.join(out, "cpu.json")))
wb = cpu["workbench"]["percent_of_one_core"]
met = wb < 5
if not met:
    missed.append("cpu")
print(f"\nCPU over {cpu['seconds']:.1f} s with {containers} running containers sampled at 2 Hz (the window "
      f"shows all {containers} in the list and the selected one's chart); the window was sent {samples} "
      f"memory samples meanwhile ({int(samples) / cpu['seconds']:.1f} per second):\n")
print("| process | CPU seconds | % of one core |")
print("| --- | ---: | ---: |")
for name in [k for k in cpu if isinstance(cpu[k], dict)]:
    print(f"| {name} | {cpu[name]['cpu_s']:.2f} | {cpu[name]['percent_of_one_core']:.2f}% |")
print(f"\nWorkbench CPU: **{wb:.2f}%** of one core (target < 5%: **{'met' if met else 'missed'}**)")
with open(os.path.join(out, "missed"), "w") as f:
    f.write("\n".join(missed))
PY
cat "$report"
status=0
[ "$check" = 0 ] || [ ! -s "$out_dir/missed" ] || status=1
case $out_dir in
"$work"/*) ;;
*) echo >&2 && echo "workbench-benchmarks: JSON and report.md kept in $out_dir" >&2 ;;
esac
exit "$status"
