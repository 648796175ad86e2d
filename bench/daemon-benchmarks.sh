#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Warm exec latency through cordond against bubblewrap, measured in the same run, and the resident memory of
# the daemon and of each container's cordon-init with 0, 10 and 50 idle containers. See docs/benchmarks.md.
#
#   bench/daemon-benchmarks.sh [BIN_DIR] [options]
#
# BIN_DIR holds the built `cordon`, `cordon-cli`, `cordond` and `cordon-init` (default: build/bin relative to the repository
# root). Starts its own cordond on a private socket and data directory; installs nothing. Needs hyperfine,
# bwrap and python3.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/daemon-benchmarks.sh [BIN_DIR] [options]

  BIN_DIR              directory with the built cordon, cordon-cli, cordond and cordon-init (default: build/bin)

options:
  --runs N             timed runs per latency command, spread over the rounds (default 200)
  --warmup N           warmup runs per command and round (default 10)
  --rounds N           latency rounds; the order of the hyperfine commands alternates between rounds, and the
                       protocol client runs after each round (default 4)
  --counts "A B ..."   idle container counts for the memory figures (default "10 50")
  --settle SEC         pause after creating containers before memory is read (default 2)
  --max-containers N   passed to cordond (default 64; must be at least the largest count)
  --loaded-runs N      runs of `cordon exec` and of the protocol client while the largest count of idle
                       containers is alive; 0 skips this pass (default 60)
  --as-user NAME       (root only) also run everything as user NAME through setpriv, with a daemon of that
                       user; delegates a cgroup subtree to NAME with `cordon cgroup-delegate` first
  --no-latency         skip the latency pass
  --no-memory          skip the memory pass
  --no-reference       skip the reference rows `cordon-cli exec` (the Qt CLI), exec-min, `cordon --version` and
                       `cordon daemon status`
  --out DIR            keep the hyperfine and client JSON, the memory snapshots and report.md in DIR
                       (default: a temp dir, removed)
  --check              exit 1 when a target is missed: cordon exec / bwrap >= 1.0, the daemon's VmRSS
                       >= 30 MiB, or a cordon-init's VmRSS >= 2 MiB
  --quick              smoke run: --runs 40 --warmup 3 --rounds 2 --counts "3 6" --settle 1 --loaded-runs 10
  -h, --help           this text
EOF
}

die() {
    echo "daemon-benchmarks: $*" >&2
    exit 2
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=build/bin
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    bin_dir=$1
    shift
fi
runs=200 warmup=10 rounds=4 counts="10 50" settle=2 max_containers=64 loaded_runs=60 as_user=""
do_latency=1 do_memory=1 reference=1 out_dir="" check=0 label=""
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --counts) counts=${2:?}; shift 2 ;;
    --settle) settle=${2:?}; shift 2 ;;
    --max-containers) max_containers=${2:?}; shift 2 ;;
    --loaded-runs) loaded_runs=${2:?}; shift 2 ;;
    --as-user) as_user=${2:?}; shift 2 ;;
    --no-latency) do_latency=0; shift ;;
    --no-memory) do_memory=0; shift ;;
    --no-reference) reference=0; shift ;;
    --out) out_dir=${2:?}; shift 2 ;;
    --check) check=1; shift ;;
    --quick) runs=40 warmup=3 rounds=2 counts="3 6" settle=1 loaded_runs=10; shift ;;
    --label) label=${2:?}; shift 2 ;; # internal: the name the --as-user pass reports under
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument \`$1'" ;;
    esac
done
[[ $settle =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "not a number of seconds: $settle"
for n in "$runs" "$warmup" "$rounds" "$max_containers" "$loaded_runs" $counts; do
    [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
if [ "$rounds" -lt 1 ] || [ "$runs" -lt "$rounds" ]; then
    die "--runs must be at least --rounds, and --rounds at least 1"
fi
per_round=$(((runs + rounds - 1) / rounds))
largest=0
for n in $counts; do
    [ "$n" -le "$largest" ] && die "--counts must be increasing: $counts"
    largest=$n
done
[ "$largest" -le "$max_containers" ] || die "--max-containers $max_containers is below the largest count $largest"

# ---------------------------------------------------------------------------------------------- prerequisites
missing=()
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# The system python3 first: --as-user runs it as another user, who may not reach a per-user install.
python=$(command -v /usr/bin/python3 || command -v python3 || true)
[ -n "$python" ] || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    die "missing: ${missing[*]}. Install with \`sudo apt-get install ${missing[*]}\`."
fi

if [ "${bin_dir#/}" = "$bin_dir" ] && [ ! -d "$bin_dir" ]; then
    bin_dir=$repo_root/$bin_dir
fi
[ -d "$bin_dir" ] || die "no such directory: $bin_dir (build first, or pass BIN_DIR)"
bin_dir=$(cd "$bin_dir" && pwd)
for program in cordon cordon-cli cordond cordon-init; do
    [ -x "$bin_dir/$program" ] ||
        die "$bin_dir/$program is missing: build it with \`cmake --build BUILD --target cordon cordond cordon-init\`"
done

shell_args=(-N)
if ! hyperfine --help 2>&1 | grep -q -- '--shell=none'; then
    shell_args=()
    echo "daemon-benchmarks: this hyperfine has no --shell=none; timings include (hyperfine-corrected) shell start-up" >&2
fi

if [ -n "$as_user" ]; then
    [ "$(id -u)" = 0 ] || die "--as-user needs root"
    id -u "$as_user" >/dev/null 2>&1 || die "no such user: $as_user"
    command -v setpriv >/dev/null 2>&1 || die "setpriv is missing (package util-linux)"
fi
[ -n "$label" ] || label=$(id -un)

# shellcheck source=bench/lib/private-daemon.sh
. "$bench_dir/lib/private-daemon.sh"
private_daemon_init cordon-dbench
if [ -z "$out_dir" ]; then
    out_dir=$work/results
fi
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

# ------------------------------------------------------------------------------------------------- commands
# shellcheck source=bench/lib/bwrap-peer.sh
. "$bench_dir/lib/bwrap-peer.sh"
bwrap_peer_init

# ----------------------------------------------------------------------------------------- memory snapshot
# One JSON line per snapshot: the daemon's /proc status and smaps_rollup, and the same for each cordon-init
# that is a child of the daemon, plus the memory cgroup usage of the cgroup each init is in.
snapshot_py=$work/snapshot.py
cat >"$snapshot_py" <<'PY'
import json, os, sys

daemon, what, containers, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])


def kib_fields(path, names):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    out = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in names:
            out[key] = int(value.split()[0])
    return out


STATUS = ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "Threads")
ROLLUP = ("Rss", "Pss", "Pss_Anon", "Pss_File", "Shared_Clean", "Shared_Dirty", "Private_Clean",
          "Private_Dirty", "Anonymous")


def process(pid):
    status = kib_fields(f"/proc/{pid}/status", STATUS + ("PPid",))
    if status is None:
        return None
    rollup = kib_fields(f"/proc/{pid}/smaps_rollup", ROLLUP)
    entry = {"pid": pid, "status": status, "rollup": rollup}
    if rollup:
        entry["uss"] = rollup.get("Private_Clean", 0) + rollup.get("Private_Dirty", 0)
    return entry


def cgroup_usage(pid):
    try:
        lines = open(f"/proc/{pid}/cgroup").read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            usage = f"/sys/fs/cgroup/memory{path}/memory.usage_in_bytes"
        elif controllers == "":
            usage = f"/sys/fs/cgroup{path}/memory.current"
            if not os.path.exists(usage):
                usage = f"/sys/fs/cgroup/unified{path}/memory.current"
        else:
            continue
        try:
            return int(open(usage).read()) // 1024
        except OSError:
            continue
    return None


inits, others = [], []
for name in os.listdir("/proc"):
    if not name.isdigit():
        continue
    try:
        comm = open(f"/proc/{name}/comm").read().strip()
        ppid = kib_fields(f"/proc/{name}/status", ("PPid",))
    except OSError:
        continue
    if not ppid or ppid.get("PPid") != daemon:
        continue
    if comm == "cordon-init":
        entry = process(int(name))
        if entry:
            entry["cgroup_kib"] = cgroup_usage(int(name))
            inits.append(entry)
    else:
        others.append(comm)
print(json.dumps({"what": what, "containers": containers, "create_seconds": seconds,
                  "daemon": process(daemon), "inits": inits, "other_children": others}))
PY

snapshot() { # what containers create_seconds
    "$python" "$snapshot_py" "$daemon_pid" "$1" "$2" "$3" >>"$out_dir/memory.jsonl"
}

# --------------------------------------------------------------------------------------------------- latency
exec_client=$bench_dir/exec-client.py
# The smallest native client (bench/exec-min.c), as a reference for what a CLI without Qt could cost.
exec_min=""
if [ "$reference" = 1 ]; then
    cc=$(command -v cc || command -v gcc || true)
    if [ -n "$cc" ] && "$cc" -O2 -o "$work/exec-min" "$bench_dir/exec-min.c" 2>"$work/cc.log"; then
        exec_min=$work/exec-min
    else
        echo "daemon-benchmarks: no C compiler (or bench/exec-min.c failed to build): skipping the exec-min row" >&2
    fi
fi
latency_json=$out_dir/latency
mkdir -p "$latency_json"

measure_latency() { # container
    local ctr=$1
    local exec_cmd="$cordon exec $ctr -- /bin/true" bwrap_line
    bwrap_line=$(join "${bwrap_cmd[@]}")
    local names=(bwrap "cordon exec") cmds=("$bwrap_line" "$exec_cmd")
    if [ "$reference" = 1 ]; then
        # `cordon` runs a plain exec without Qt; the Qt CLI it hands everything else to, timed on the same exec.
        names+=("cordon-cli exec (Qt)" "cordon --version" "cordon daemon status")
        cmds+=("$bin_dir/cordon-cli exec $ctr -- /bin/true" "$cordon --version" "$cordon daemon status")
        if [ -n "$exec_min" ]; then
            names+=("exec-min (C client, no Qt)")
            cmds+=("$exec_min $ctr /bin/true")
        fi
    fi
    local i
    for i in "${!cmds[@]}"; do
        # shellcheck disable=SC2086 # split into words on purpose, as hyperfine -N does
        if ! ${cmds[$i]} >"$work/check.log" 2>&1; then
            cat "$work/check.log" >&2
            die "\`${cmds[$i]}\` failed; fix that first"
        fi
    done
    "$python" "$exec_client" "$ctr" --runs 1 --warmup 0 >/dev/null || die "bench/exec-client.py failed"

    echo "[$label] latency: $rounds round(s) x $per_round runs per command, warmup $warmup" >&2
    local round order
    for ((round = 1; round <= rounds; round++)); do
        order=()
        if ((round % 2 == 1)); then
            for i in "${!cmds[@]}"; do order+=(-n "${names[$i]}" "${cmds[$i]}"); done
        else
            for ((i = ${#cmds[@]} - 1; i >= 0; i--)); do order+=(-n "${names[$i]}" "${cmds[$i]}"); done
        fi
        hyperfine "${shell_args[@]}" --style basic --warmup "$warmup" --runs "$per_round" \
            --export-json "$latency_json/round-$round.json" "${order[@]}" >"$latency_json/round-$round.log" 2>&1 || {
            cat "$latency_json/round-$round.log" >&2
            die "hyperfine failed in round $round"
        }
        "$python" "$exec_client" "$ctr" --runs "$per_round" --warmup "$warmup" \
            --json "$latency_json/protocol-$round.json" >"$latency_json/protocol-$round.log" || {
            cat "$latency_json/protocol-$round.log" >&2
            die "bench/exec-client.py failed in round $round"
        }
        echo "[$label]   round $round done" >&2
    done
}

measure_loaded_latency() { # container count
    local ctr=$1
    echo "[$label] latency with $2 idle containers alive: $loaded_runs runs each" >&2
    hyperfine "${shell_args[@]}" --style basic --warmup 3 --runs "$loaded_runs" \
        --export-json "$latency_json/loaded.json" -n bwrap "$(join "${bwrap_cmd[@]}")" \
        -n "cordon exec" "$cordon exec $ctr -- /bin/true" >"$latency_json/loaded.log" 2>&1 || {
        cat "$latency_json/loaded.log" >&2
        die "hyperfine failed in the pass with $2 containers"
    }
    "$python" "$exec_client" "$ctr" --runs "$loaded_runs" --warmup 3 --json "$latency_json/loaded-protocol.json" \
        >"$latency_json/loaded-protocol.log" || die "bench/exec-client.py failed with $2 containers"
    echo "$2" >"$latency_json/loaded-count"
}

# ------------------------------------------------------------------------------------------------- report
summarize() {
    "$python" - "$label" "$out_dir" "$per_round" <<'PY'
import glob, json, os, statistics, sys

label, out, per_round = sys.argv[1], sys.argv[2], int(sys.argv[3])
ms = lambda s: "%.2f ms" % (s * 1000)
mib = lambda k: "%.1f MiB" % (k / 1024)
PROTOCOL = "protocol run.exec + run.wait (python, one connection)"
missed = []


def table(times):
    base = statistics.median(times["bwrap"])
    print("| command | runs | median | mean ± σ | min | max | median / bwrap |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, t in times.items():
        med = statistics.median(t)
        sd = statistics.stdev(t) if len(t) > 1 else 0.0
        print(f"| {name} | {len(t)} | {ms(med)} | {ms(statistics.mean(t))} ± {ms(sd)[:-3]} | "
              f"{ms(min(t))} | {ms(max(t))} | {med / base:.2f}x |")
    return base


lat = out + "/latency"
rounds = sorted(glob.glob(lat + "/round-*.json"), key=lambda p: int(p.rsplit("-", 1)[1][:-5]))
if rounds:
    times, per = {}, []
    exec_half, wait_half = [], []
    for path in rounds:
        n = path.rsplit("-", 1)[1][:-5]
        medians = {}
        for result in json.load(open(path))["results"]:
            times.setdefault(result["command"], []).extend(result["times"])
            medians[result["command"]] = statistics.median(result["times"])
        proto = json.load(open(f"{lat}/protocol-{n}.json"))
        times.setdefault(PROTOCOL, []).extend(proto["times"])
        exec_half += proto["exec_times"]
        wait_half += proto["wait_times"]
        medians[PROTOCOL] = statistics.median(proto["times"])
        per.append(medians)
    order = ["bwrap", "cordon exec", PROTOCOL, "exec-min (C client, no Qt)", "cordon-cli exec (Qt)",
             "cordon --version", "cordon daemon status"]
    times = {k: times[k] for k in order if k in times}
    print(f"#### Warm exec latency ({label}, one idle container)\n")
    base = table(times)
    a = statistics.median(times["cordon exec"]) / base
    b = statistics.median(times[PROTOCOL]) / base
    print(f"\nThe protocol row: run.exec answered after {ms(statistics.median(exec_half))} (median), run.wait "
          f"after a further {ms(statistics.median(wait_half))}; timed inside python with perf_counter, so it "
          "has no process start, unlike the hyperfine rows.\n")
    va = "met" if a < 1.0 else "MISSED"
    vb = "met" if b < 1.0 else "MISSED"
    if a >= 1.0:
        missed.append(f"[{label}] cordon exec / bwrap = {a:.2f}x")
    print(f"- (a) cordon exec / bwrap (medians): **{a:.2f}x** (target < 1.00x: {va}); per round: "
          + ", ".join("%.2fx" % (r["cordon exec"] / r["bwrap"]) for r in per))
    print(f"- (b) protocol round trip / bwrap (medians): **{b:.2f}x** (target < 1.00x: {vb}); per round: "
          + ", ".join("%.2fx" % (r[PROTOCOL] / r["bwrap"]) for r in per))

loaded = lat + "/loaded.json"
if os.path.exists(loaded):
    count = open(lat + "/loaded-count").read().strip()
    t = {r["command"]: r["times"] for r in json.load(open(loaded))["results"]}
    t[PROTOCOL] = json.load(open(lat + "/loaded-protocol.json"))["times"]
    print(f"\n#### Warm exec latency with {count} idle containers alive ({label})\n")
    base = table(t)
    print(f"\n- cordon exec / bwrap: **{statistics.median(t['cordon exec']) / base:.2f}x**; protocol / bwrap: "
          f"**{statistics.median(t[PROTOCOL]) / base:.2f}x**")

mem = out + "/memory.jsonl"
if os.path.exists(mem) and os.path.getsize(mem) > 0:  # empty with --no-memory
    snaps = [json.loads(line) for line in open(mem)]
    notes = []
    print(f"\n#### Resident memory ({label})\n")
    print("| snapshot | containers | inits found | daemon VmRSS | daemon VmHWM | daemon RssAnon / RssFile | "
          "init VmRSS mean | init VmRSS max | init USS mean | init PSS mean | "
          "all inits VmRSS | all inits USS | cgroup usage per container, mean |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in snaps:
        d = s["daemon"]
        ds = d["status"]
        inits = s["inits"]
        rss = [i["status"]["VmRSS"] for i in inits]
        uss = [i["uss"] for i in inits if "uss" in i]
        pss = [i["rollup"]["Pss"] for i in inits if i.get("rollup")]
        cg = [i["cgroup_kib"] for i in inits if i.get("cgroup_kib") is not None]
        avg = lambda v, f=mib: f(statistics.mean(v)) if v else "–"
        row = [s["what"], str(s["containers"]), str(len(inits)), mib(ds["VmRSS"]), mib(ds["VmHWM"]),
               f"{mib(ds.get('RssAnon', 0))} / {mib(ds.get('RssFile', 0))}",
               avg(rss), mib(max(rss)) if rss else "–", avg(uss), avg(pss),
               mib(sum(rss)) if rss else "–", mib(sum(uss)) if uss else "–", avg(cg)]
        print("| " + " | ".join(row) + " |")
        if ds["VmRSS"] >= 30 * 1024:
            missed.append(f"[{label}] daemon VmRSS {mib(ds['VmRSS'])} at '{s['what']}'")
        if rss and max(rss) >= 2048:
            missed.append(f"[{label}] cordon-init VmRSS max {mib(max(rss))} at '{s['what']}'")
        if s["other_children"]:
            notes.append(f"'{s['what']}': other children of the daemon: {', '.join(s['other_children'])}")
    for note in notes:
        print(f"\n{note}")
    created = [s for s in snaps if s["create_seconds"] > 0]
    if created:
        print("\nContainer creation, sequential `cordon create` calls: "
              + "; ".join(f"{s['containers']} containers after {s['create_seconds']:.2f} s" for s in created))
    daemon_max = max(s["daemon"]["status"]["VmRSS"] for s in snaps)
    all_rss = [i["status"]["VmRSS"] for s in snaps for i in s["inits"]]
    print(f"\n- daemon VmRSS, largest snapshot: **{mib(daemon_max)}** (target < 30 MiB: "
          f"{'met' if daemon_max < 30 * 1024 else 'MISSED'})")
    if all_rss:
        print(f"- cordon-init VmRSS, largest of any snapshot: **{mib(max(all_rss))}**, mean "
              f"**{mib(statistics.mean(all_rss))}** (target < 2 MiB per init: "
              f"{'met' if max(all_rss) < 2048 else 'MISSED'})")
open(out + "/missed", "w").write("".join(m + "\n" for m in missed))
PY
}

host_info() {
    echo "- host: $(nproc) CPUs, kernel $(uname -r), Debian $(cat /etc/debian_version 2>/dev/null || echo unknown)," \
        "$(hyperfine --version), bwrap $(bwrap --version | awk '{print $2}')"
    echo "- cordon: $bin_dir ($("$cordon" --version 2>/dev/null | awk '{print $2}')), as $label (uid $(id -u))"
    echo "- cgroups: $("$cordon" daemon status 2>/dev/null | sed -n 's/^cgroups: *//p')"
    echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# ---------------------------------------------------------------------------------------------------- run
report=$out_dir/report.md
: >"$out_dir/memory.jsonl"
start_daemon --max-containers "$max_containers"
{
    echo "### cordond: warm exec and resident memory, $(date -u +%Y-%m-%dT%H:%MZ) ($label)"
    echo
    host_info
    echo "- cordond --max-containers $max_containers, private CORDON_DATA_DIR and CORDON_SOCKET under $work"
    echo "- latency: hyperfine ${shell_args[*]} --warmup $warmup, $rounds round(s) of $per_round runs, order" \
        "alternating; bench/exec-client.py --runs $per_round --warmup $warmup after each round"
    echo "- bwrap: \`$(join "${bwrap_cmd[@]}")\`"
} >"$report"

[ "$do_memory" = 0 ] || snapshot "fresh daemon" 0 0

if [ "$do_latency" = 1 ]; then
    create_containers 1 bench-exec
    measure_latency "${created[0]}"
    # cordon exec, the protocol client and exec-min each ran (warmup + runs) per round, plus one check each.
    execs=$(((per_round + warmup) * rounds + 1))
    execs=$((execs * (${exec_min:+1} + 2)))
    [ "$do_memory" = 0 ] || snapshot "after the latency runs ($execs execs)" 1 0
    delete_all
fi

if [ "$do_memory" = 1 ]; then
    have=0 seconds=0
    for n in $counts; do
        t0=$(date +%s.%N)
        create_containers $((n - have)) idle
        t1=$(date +%s.%N)
        seconds=$(awk -v a="$t0" -v b="$t1" -v s="$seconds" 'BEGIN { printf "%.3f", s + b - a }')
        have=$n
        sleep "$settle"
        snapshot "$n idle" "$n" "$seconds"
    done
    if [ "$do_latency" = 1 ] && [ "$loaded_runs" -gt 0 ] && [ "$have" -gt 0 ]; then
        measure_loaded_latency "${created[0]}" "$have"
    fi
    delete_all
    sleep "$settle"
    snapshot "all deleted" 0 0
fi

{
    echo
    summarize
    echo
    echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$report"
status=0
[ "$check" = 0 ] || [ ! -s "$out_dir/missed" ] || status=1

if [ -n "$as_user" ]; then
    # The build tree and this checkout may sit below a 0700 home: copy what the user runs.
    user_dir=$work/as-$as_user
    mkdir -p "$user_dir/bin" "$user_dir/bench/lib" "$out_dir/$as_user"
    cp "$bin_dir/cordon" "$bin_dir/cordon-cli" "$bin_dir/cordond" "$bin_dir/cordon-init" "$user_dir/bin/"
    cp "$bench_dir/daemon-benchmarks.sh" "$bench_dir/exec-client.py" "$bench_dir/exec-min.c" "$user_dir/bench/"
    cp "$bench_dir/lib/private-daemon.sh" "$bench_dir/lib/bwrap-peer.sh" "$user_dir/bench/lib/"
    chmod -R a+rX "$user_dir"
    chown "$as_user:" "$out_dir/$as_user"
    echo "daemon-benchmarks: delegating a cgroup subtree to $as_user (cordon cgroup-delegate, idempotent)" >&2
    "$cordon" cgroup-delegate --user "$as_user" >&2 ||
        echo "daemon-benchmarks: cgroup delegation failed; containers of $as_user may not start" >&2
    user_args=(--runs "$runs" --warmup "$warmup" --rounds "$rounds" --counts "$counts" --settle "$settle"
        --max-containers "$max_containers" --loaded-runs "$loaded_runs" --out "$out_dir/$as_user" --label "$as_user")
    [ "$do_latency" = 1 ] || user_args+=(--no-latency)
    [ "$do_memory" = 1 ] || user_args+=(--no-memory)
    [ "$reference" = 1 ] || user_args+=(--no-reference)
    [ "$check" = 0 ] || user_args+=(--check)
    user_status=0
    (cd "$user_dir" && setpriv --reuid="$(id -u "$as_user")" --regid="$(id -g "$as_user")" --init-groups \
        --inh-caps=-all --bounding-set=-all env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$user_dir" \
        LANG=C.UTF-8 bash "$user_dir/bench/daemon-benchmarks.sh" "$user_dir/bin" "${user_args[@]}" \
        >"$out_dir/$as_user/stdout.md") || user_status=$?
    case $user_status in
    0) ;;
    1) status=1 ;;
    *) die "the pass as $as_user failed (status $user_status)" ;;
    esac
    { echo; cat "$out_dir/$as_user/report.md"; } >>"$report"
fi

cat "$report"
case $out_dir in
"$work"/*) ;;
*) echo >&2 && echo "daemon-benchmarks: JSON, memory.jsonl and report.md kept in $out_dir" >&2 ;;
esac
exit "$status"
