#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-shot latency of `cordon run -- /bin/true` against bubblewrap with an equivalent read-only root, measured
# in the same run, plus peak memory. See docs/benchmarks.md for what is measured and the recorded numbers.
#
#   bench/run-benchmarks.sh [BIN_DIR] [options]
#
# BIN_DIR holds the built `cordon` and `cordon-init` (default: build/bin relative to the repository root).
# Installs nothing. Needs hyperfine, bwrap and python3 (or jq for the latency table alone).
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/run-benchmarks.sh [BIN_DIR] [options]

  BIN_DIR              directory with the built cordon and cordon-init (default: build/bin in the repo)

options:
  --runs N             timed runs per command, spread over the rounds (default 200)
  --warmup N           warmup runs per command and round (default 10)
  --rounds N           hyperfine invocations; command order alternates between rounds so that drift in
                       machine load hits both sides alike (default 4)
  --memory-samples N   runs per command for the peak-memory figures (default 20)
  --data-base DIR      where the private CORDON_DATA_DIR is created (default: $TMPDIR or /tmp); the
                       workspace is created and removed there on every run, so its filesystem matters
  --as-user NAME       (root only) also run the comparison as user NAME through setpriv; delegates a cgroup
                       subtree to NAME with `cordon cgroup-delegate` first (idempotent)
  --idle-runs N        runs per command of the second pass, where every run starts from an idle machine
                       (hyperfine --prepare 'sleep PAUSE'); 0 skips it (default 60)
  --idle-pause SEC     the pause before each run of that pass (default 0.1)
  --no-reference       skip the reference rows: `cordon run` with --json, with --policy (a small policy
                       file), with --input and --output-dir (one small file in, outputs copied out), and
                       with --stdin, each `-- /bin/true` as the plain row; and `cordon run` with
                       CORDON_DATA_DIR on tmpfs (/dev/shm), which isolates the disk's share (through
                       env(1), which adds one exec of about 0.4 ms to that row)
  --out DIR            keep the hyperfine JSON files and report.md in DIR (default: a temp dir, removed)
  --check              exit 1 when a `cordon run` variant's median ratio to bwrap is above the 1.3x target
  --quick              smoke run: --runs 40 --warmup 3 --rounds 2 --memory-samples 5
  -h, --help           this text
EOF
}

die() {
    echo "run-benchmarks: $*" >&2
    exit 2
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=build/bin
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    bin_dir=$1
    shift
fi
runs=200 warmup=10 rounds=4 mem_samples=20 data_base=${TMPDIR:-/tmp} as_user="" reference=1 out_dir=""
check=0 idle_runs=60 idle_pause=0.1
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --memory-samples) mem_samples=${2:?}; shift 2 ;;
    --data-base) data_base=${2:?}; shift 2 ;;
    --as-user) as_user=${2:?}; shift 2 ;;
    --idle-runs) idle_runs=${2:?}; shift 2 ;;
    --idle-pause) idle_pause=${2:?}; shift 2 ;;
    --no-reference) reference=0; shift ;;
    --out) out_dir=${2:?}; shift 2 ;;
    --check) check=1; shift ;;
    --quick) runs=40 warmup=3 rounds=2 mem_samples=5 idle_runs=10; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument \`$1'" ;;
    esac
done
[[ $idle_pause =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "not a number of seconds: $idle_pause"
for n in "$runs" "$warmup" "$rounds" "$mem_samples" "$idle_runs"; do
    [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
if [ "$rounds" -lt 1 ] || [ "$runs" -lt "$rounds" ]; then
    die "--runs must be at least --rounds, and --rounds at least 1"
fi
per_round=$(((runs + rounds - 1) / rounds))

# ---------------------------------------------------------------------------------------------- prerequisites
missing=()
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
    die "missing: ${missing[*]}. Install with \`sudo packaging/bootstrap.sh --dev\` or \`sudo apt-get install ${missing[*]}\`."
fi
# The system python3 first: --as-user runs it as another user, who may not reach a per-user install.
python=$(command -v /usr/bin/python3 || command -v python3 || true)
jq=$(command -v jq || true)
[ -n "$python" ] || [ -n "$jq" ] || die "python3 (or jq) is needed to compute the medians: sudo apt-get install python3"

# A relative BIN_DIR is taken from the current directory, else from the repository root.
if [ "${bin_dir#/}" = "$bin_dir" ] && [ ! -d "$bin_dir" ]; then
    bin_dir=$repo_root/$bin_dir
fi
[ -d "$bin_dir" ] || die "no such directory: $bin_dir (build first, or pass BIN_DIR)"
bin_dir=$(cd "$bin_dir" && pwd)
for program in cordon cordon-init; do
    [ -x "$bin_dir/$program" ] || die "$bin_dir/$program is missing: build it with \`cmake --build BUILD --target cordon cordon-init\` (cordon builds cordon-cli too)"
done

# -N (alias of --shell=none) runs the commands without an intermediate shell; hyperfine >= 1.13 has it.
shell_args=(-N)
if ! hyperfine --help 2>&1 | grep -q -- '--shell=none'; then
    shell_args=()
    echo "run-benchmarks: this hyperfine has no --shell=none; timings include (hyperfine-corrected) shell start-up" >&2
fi

if [ -n "$as_user" ]; then
    [ "$(id -u)" = 0 ] || die "--as-user needs root"
    id -u "$as_user" >/dev/null 2>&1 || die "no such user: $as_user"
    command -v setpriv >/dev/null 2>&1 || die "setpriv is missing (package util-linux)"
fi

work=$(mktemp -d "${data_base%/}/cordon-bench.XXXXXX")
shm_base=""
if [ "$reference" = 1 ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
    shm_base=$(mktemp -d /dev/shm/cordon-bench.XXXXXX) && chmod 0755 "$shm_base" || shm_base=""
fi
trap 'rm -rf "$work" ${shm_base:+"$shm_base"}' EXIT
chmod 0755 "$work"
# What the reference rows pass: a policy file and one small input, readable by every user.
printf '{"limits": {"pids": 64}, "env": {"LANG": "C.UTF-8"}}\n' >"$work/policy.json"
printf 'one small input\n' >"$work/input.txt"
chmod 0644 "$work/policy.json" "$work/input.txt"
if [ -z "$out_dir" ]; then
    out_dir=$work/results
fi
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

# ------------------------------------------------------------------------------------------------- commands
# shellcheck source=bench/lib/bwrap-peer.sh
. "$bench_dir/lib/bwrap-peer.sh"
bwrap_peer_init

host_info() {
    local debian load
    debian=$(cat /etc/debian_version 2>/dev/null || echo unknown)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "- host: $(nproc) CPUs, kernel $(uname -r), Debian $debian, $(hyperfine --version), bwrap $(bwrap --version | awk '{print $2}')"
    echo "- load average at start: $load"
}

# --------------------------------------------------------------------------------------------------- measure
# The prefix (empty, or setpriv ... env -i ...) is what everything of one user's pass runs under.
measure_latency() { # label data_dir cordon_bin_dir json_dir [prefix...]
    local label=$1 data_dir=$2 cbin=$3 json_dir=$4
    shift 4
    local prefix=("$@")
    local cordon_cmd="$cbin/cordon run -- /bin/true"
    local bwrap_line
    bwrap_line=$(join "${bwrap_cmd[@]}")
    local names=(bwrap "cordon run") cmds=("$bwrap_line" "$cordon_cmd")
    if [ "$reference" = 1 ]; then
        names+=("cordon run --json" "cordon run --policy" "cordon run --input --output-dir" "cordon run --stdin")
        cmds+=("$cbin/cordon run --json -- /bin/true" "$cbin/cordon run --policy $work/policy.json -- /bin/true"
            "$cbin/cordon run --input $work/input.txt --output-dir $data_dir-outputs -- /bin/true"
            "$cbin/cordon run --stdin -- /bin/true")
        if [ -n "$shm_base" ]; then
            names+=("cordon run, data dir on tmpfs")
            cmds+=("env CORDON_DATA_DIR=$shm_base/data-$label $cordon_cmd")
        fi
    fi

    # A failing command would make hyperfine abort; check each once, with its output visible.
    local i
    for i in "${!cmds[@]}"; do
        # shellcheck disable=SC2086 # the command line is split into words on purpose, as hyperfine -N does
        if ! "${prefix[@]}" env CORDON_DATA_DIR="$data_dir" ${cmds[$i]} >"$json_dir/check.log" 2>&1; then
            cat "$json_dir/check.log" >&2
            die "[$label] \`${cmds[$i]}\` failed; fix that first"
        fi
    done

    echo "[$label] back to back: $rounds round(s) x $per_round runs per command, warmup $warmup" >&2
    local round order
    for ((round = 1; round <= rounds; round++)); do
        order=()
        if ((round % 2 == 1)); then
            for i in "${!cmds[@]}"; do order+=(-n "${names[$i]}" "${cmds[$i]}"); done
        else
            for ((i = ${#cmds[@]} - 1; i >= 0; i--)); do order+=(-n "${names[$i]}" "${cmds[$i]}"); done
        fi
        "${prefix[@]}" env CORDON_DATA_DIR="$data_dir" hyperfine "${shell_args[@]}" --style basic \
            --warmup "$warmup" --runs "$per_round" --export-json "$json_dir/round-$round.json" "${order[@]}" \
            >"$json_dir/round-$round.log" 2>&1 || {
            cat "$json_dir/round-$round.log" >&2
            die "[$label] hyperfine failed in round $round"
        }
        echo "[$label]   round $round done" >&2
    done

    # Back-to-back runs keep kernel state warm that a lone run does not find (see docs/benchmarks.md):
    # here each run follows a pause.
    if [ "$idle_runs" -gt 0 ]; then
        echo "[$label] from idle: $idle_runs runs per command, each after sleep $idle_pause" >&2
        "${prefix[@]}" env CORDON_DATA_DIR="$data_dir" hyperfine "${shell_args[@]}" --style basic \
            --warmup 3 --runs "$idle_runs" --prepare "sleep $idle_pause" --export-json "$json_dir/idle.json" \
            -n bwrap "$bwrap_line" -n "cordon run" "$cordon_cmd" >"$json_dir/idle.log" 2>&1 || {
            cat "$json_dir/idle.log" >&2
            die "[$label] hyperfine failed in the idle pass"
        }
    fi
}

summarize_latency() { # label json_dir
    local label=$1 json_dir=$2
    if [ -n "$python" ]; then
        "$python" - "$label" "$json_dir" <<'PY'
import glob, json, os, statistics, sys
label, json_dir = sys.argv[1], sys.argv[2]
ms = lambda s: "%.2f ms" % (s * 1000)


def table(times):
    base = statistics.median(times["bwrap"])
    print("| command | runs | median | mean ± σ | min | max | median / bwrap |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, t in times.items():
        med = statistics.median(t)
        sd = statistics.stdev(t) if len(t) > 1 else 0.0
        print(f"| {name} | {len(t)} | {ms(med)} | {ms(statistics.mean(t))} ± {ms(sd)[:-3]} | "
              f"{ms(min(t))} | {ms(max(t))} | {med / base:.2f}x |")
    return statistics.median(times["cordon run"]) / base


times, per_round = {}, []
for path in sorted(glob.glob(json_dir + "/round-*.json"), key=lambda p: int(p.rsplit("-", 1)[1][:-5])):
    medians = {}
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
        medians[result["command"]] = statistics.median(result["times"])
    per_round.append(medians)
print(f"#### Latency, back to back ({label})\n")
ratio = table(times)
rounds = [r["cordon run"] / r["bwrap"] for r in per_round]
# The targets of every variant (issue 13): the reading rows (data dir on tmpfs: one more exec) are not one.
base = statistics.median(times["bwrap"])
variants = {name: statistics.median(t) / base for name, t in times.items()
            if name.startswith("cordon run") and "tmpfs" not in name}
worst_name = max(variants, key=variants.get)
worst = variants[worst_name]
print(f"\nRatio cordon run / bwrap (medians): **{ratio:.2f}x** (aim <= 1.00x: "
      f"{'met' if ratio <= 1.0 else 'not met'}); per round: {', '.join('%.2fx' % r for r in rounds)}. "
      f"Every variant: at most **{worst:.2f}x** (`{worst_name}`; target <= 1.30x: "
      f"{'met' if worst <= 1.3 else 'MISSED'})")
open(json_dir + "/ratio", "w").write(f"{worst:.4f}\n")

idle = json_dir + "/idle.json"
if os.path.exists(idle):
    data = json.load(open(idle))
    print(f"\n#### Latency, each run from idle ({label})\n")
    idle_ratio = table({r["command"]: r["times"] for r in data["results"]})
    verdict = "met" if idle_ratio <= 1.3 else "MISSED"
    print(f"\nRatio cordon run / bwrap (medians): **{idle_ratio:.2f}x** (target <= 1.30x: {verdict})")
PY
    else
        local all=("$json_dir"/round-*.json)
        # shellcheck disable=SC2016 # $t and $base are jq variables
        local jq_table='
            def median: sort | if length % 2 == 1 then .[length / 2 | floor]
                               else (.[length / 2 - 1] + .[length / 2]) / 2 end;
            def ms: . * 100000 | round / 100 | tostring + " ms";
            [.[].results[]] | group_by(.command) | map({key: .[0].command, value: [.[].times[]]})
            | from_entries as $t | ($t.bwrap | median) as $base
            | "| command | runs | median | median / bwrap |\n| --- | ---: | ---: | ---: |",
              ($t | to_entries[] | "| \(.key) | \(.value | length) | \(.value | median | ms) | \((.value | median) / $base * 100 | round / 100)x |"),
              "\nRatio cordon run / bwrap (medians): **\(($t["cordon run"] | median) / $base * 100 | round / 100)x** (target <= 1.30x)"'
        echo "#### Latency, back to back ($label)"
        echo
        jq -rs "$jq_table" "${all[@]}"
        jq -s '[.[].results[]] | group_by(.command) | map({key: .[0].command, value: ([.[].times[]] | sort | .[length / 2 | floor])}) | from_entries | .["cordon run"] / .bwrap' \
            "${all[@]}" >"$json_dir/ratio"
        if [ -f "$json_dir/idle.json" ]; then
            echo
            echo "#### Latency, each run from idle ($label)"
            echo
            jq -rs "$jq_table" "$json_dir/idle.json"
        fi
    fi
}

# Peak resident memory of one whole invocation, in KiB: the largest process of the tree that was waited for
# (the front-end, cordon-init or the run for cordon; bwrap, its pid-1 helper or the run for bwrap), as
# wait4() reports it. The measurer runs after the setpriv/env prefix so that their own size is not counted.
# Without /usr/bin/time, python3 forks and waits instead; a child forked from python starts with python's
# anonymous memory as its high-water mark (about 6 MiB), so that fallback also measures /bin/true as the
# floor below which its figures mean nothing.
wait4_py='
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else "failed")'
max_rss_kib() { # command... (with the measurer in it)
    if [ -x /usr/bin/time ]; then
        "$@" 2>&1 >/dev/null | tail -n 1 # /usr/bin/time -f %M prints last, on stderr
    else
        "$@"
    fi
}

measure_memory() { # label data_dir cordon_bin_dir json_dir [prefix...]
    local label=$1 data_dir=$2 cbin=$3 json_dir=$4
    shift 4
    local prefix=("$@") timer=()
    if [ -x /usr/bin/time ]; then
        timer=(/usr/bin/time -f %M)
    elif [ -n "$python" ]; then
        timer=("$python" -S -c "$wait4_py")
    else
        echo "run-benchmarks: neither /usr/bin/time nor python3: skipping peak memory" >&2
        return
    fi
    local i bw=() co=() pk=() fl=()
    for ((i = 0; i < mem_samples; i++)); do
        [ -x /usr/bin/time ] || fl+=("$(max_rss_kib "${prefix[@]}" "${timer[@]}" /bin/true)")
        bw+=("$(max_rss_kib "${prefix[@]}" "${timer[@]}" "${bwrap_cmd[@]}")")
        co+=("$(max_rss_kib "${prefix[@]}" env CORDON_DATA_DIR="$data_dir" "${timer[@]}" "$cbin/cordon" run -- /bin/true)")
        pk+=("$("${prefix[@]}" env CORDON_DATA_DIR="$data_dir" "$cbin/cordon" run --json -- /bin/true |
            sed -n 's/^ *"peak_memory_bytes": *\([0-9]*\).*/\1/p')")
    done
    printf '%s\n' "${bw[@]}" >"$json_dir/maxrss-bwrap.txt"
    printf '%s\n' "${co[@]}" >"$json_dir/maxrss-cordon.txt"
    printf '%s\n' "${pk[@]}" >"$json_dir/peak-run-bytes.txt"
    local median_of='
import statistics, sys
values = [int(v) // int(sys.argv[2]) for v in open(sys.argv[1]).read().split() if v.isdigit()]
print("%d %d %d %d" % (statistics.median(values), min(values), max(values), len(values)) if values else "? ? ? 0")'
    local b c p
    if [ -n "$python" ]; then
        read -r -a b <<<"$("$python" -c "$median_of" "$json_dir/maxrss-bwrap.txt" 1)"
        read -r -a c <<<"$("$python" -c "$median_of" "$json_dir/maxrss-cordon.txt" 1)"
        read -r -a p <<<"$("$python" -c "$median_of" "$json_dir/peak-run-bytes.txt" 1024)"
    else
        # shellcheck disable=SC2016 # $d is a jq variable
        local jqm='[.[] | numbers | . / $d | floor] | sort
            | if length == 0 then "? ? ? 0" else "\(.[length / 2 | floor]) \(.[0]) \(.[-1]) \(length)" end'
        read -r -a b <<<"$(jq -rs --argjson d 1 "$jqm" "$json_dir/maxrss-bwrap.txt")"
        read -r -a c <<<"$(jq -rs --argjson d 1 "$jqm" "$json_dir/maxrss-cordon.txt")"
        read -r -a p <<<"$(jq -rs --argjson d 1024 "$jqm" "$json_dir/peak-run-bytes.txt")"
    fi
    local how="/usr/bin/time -f %M" floor=""
    if [ ! -x /usr/bin/time ]; then
        how="wait4() rusage from python3"
        local f
        read -r -a f <<<"$(printf '%s\n' "${fl[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[1], v[NR]}')"
        floor="| floor of this method: /bin/true measured the same way (python's own memory, inherited at fork) | ${f[0]} KiB (${f[1]}–${f[2]}) | $how |"
    fi
    cat <<EOF

#### Peak memory ($label, median of ${b[3]} runs, min–max in brackets)

| what | peak | measured with |
| --- | ---: | --- |
| bwrap … /bin/true, largest process of the tree | ${b[0]} KiB (${b[1]}–${b[2]}) | $how |
| cordon run -- /bin/true, largest process of the tree (cordon, cordon-init or the run) | ${c[0]} KiB (${c[1]}–${c[2]}) | $how |
| the sandboxed run as cordon reports it (\`peak_memory_bytes\`: cgroup max usage or the run's max RSS) | ${p[0]} KiB (${p[1]}–${p[2]}) | \`cordon run --json\` |
EOF
    [ -z "$floor" ] || echo "$floor"
}

# ---------------------------------------------------------------------------------------------------- run
report=$out_dir/report.md
{
    echo "### cordon run vs bwrap, $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    host_info
    echo "- cordon: $bin_dir/cordon ($("$bin_dir/cordon" --version 2>/dev/null | awk '{print $2}'))"
    echo "- bwrap: \`$(join "${bwrap_cmd[@]}")\`"
    echo "- CORDON_DATA_DIR: private, under $data_base ($(findmnt -n -o FSTYPE,OPTIONS -T "$work" 2>/dev/null ||
        stat -f -c %T "$work"))"
    echo "- back to back: hyperfine ${shell_args[*]} --warmup $warmup, $rounds round(s) of $per_round runs, order alternating"
    [ "$idle_runs" = 0 ] ||
        echo "- from idle: hyperfine ${shell_args[*]} --warmup 3 --runs $idle_runs --prepare 'sleep $idle_pause'"
} >"$report"

# As the invoking user (root in the recorded numbers).
# The outputs of the --output-dir row go beside the data directory: cordon refuses a place inside it.
mkdir -p "$out_dir/$(id -un)" "$work/data-$(id -un)" "$work/data-$(id -un)-outputs"
[ -z "$shm_base" ] || mkdir -p "$shm_base/data-$(id -un)"
measure_latency "$(id -un)" "$work/data-$(id -un)" "$bin_dir" "$out_dir/$(id -un)"
{
    echo
    summarize_latency "$(id -un)" "$out_dir/$(id -un)"
    measure_memory "$(id -un)" "$work/data-$(id -un)" "$bin_dir" "$out_dir/$(id -un)"
} >>"$report"
ratios=("$(cat "$out_dir/$(id -un)/ratio")")

if [ -n "$as_user" ]; then
    # The build tree may sit below a 0700 home: copy the programs where the user can read them.
    user_bin=$work/bin-$as_user
    mkdir -p "$user_bin" "$work/data-$as_user" "$work/data-$as_user-outputs" "$out_dir/$as_user"
    cp "$bin_dir/cordon" "$bin_dir/cordon-cli" "$bin_dir/cordon-init" "$user_bin/"
    chown -R "$as_user:" "$work/data-$as_user" "$work/data-$as_user-outputs" "$out_dir/$as_user"
    if [ -n "$shm_base" ]; then
        mkdir -p "$shm_base/data-$as_user" && chown "$as_user:" "$shm_base/data-$as_user"
    fi
    echo "run-benchmarks: delegating a cgroup subtree to $as_user (cordon cgroup-delegate, idempotent)" >&2
    "$bin_dir/cordon" cgroup-delegate --user "$as_user" >&2 ||
        echo "run-benchmarks: cgroup delegation failed; cordon run as $as_user may fail" >&2
    uid=$(id -u "$as_user")
    prefix=(setpriv --reuid="$uid" --regid="$(id -g "$as_user")" --init-groups --inh-caps=-all --bounding-set=-all
        env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$work" LANG=C.UTF-8)
    (cd "$work" && measure_latency "$as_user" "$work/data-$as_user" "$user_bin" "$out_dir/$as_user" "${prefix[@]}")
    (
        echo
        summarize_latency "$as_user" "$out_dir/$as_user"
        cd "$work" && measure_memory "$as_user" "$work/data-$as_user" "$user_bin" "$out_dir/$as_user" "${prefix[@]}"
    ) >>"$report"
    ratios+=("$(cat "$out_dir/$as_user/ratio")")
fi

echo >>"$report"
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$report"
cat "$report"
case $out_dir in
"$work"/*) ;;
*) echo >&2 && echo "run-benchmarks: hyperfine JSON and report.md kept in $out_dir" >&2 ;;
esac

if [ "$check" = 1 ]; then
    for ratio in "${ratios[@]}"; do
        awk -v r="$ratio" 'BEGIN { exit !(r > 1.3) }' && exit 1
    done
fi
exit 0
