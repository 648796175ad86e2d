#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Throughput and connection set-up latency of an HTTPS download through Cordon's egress proxy (an allowed
# CONNECT tunnel, client inside a container), through tinyproxy with an equivalent allow rule, and directly
# over loopback, measured in the same run. See docs/benchmarks.md for what is measured and the recorded numbers.
#
#   bench/proxy-benchmarks.sh [BIN_DIR] [options]
#
# BIN_DIR holds the built `cordon`, `cordond` and `cordon-init` (default: build/bin relative to the repository
# root). Starts its own HTTPS server, tinyproxy and cordond on loopback, with a throwaway CA, private sockets
# and data directories; installs nothing. Needs curl, openssl, tinyproxy and python3.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/proxy-benchmarks.sh [BIN_DIR] [options]

  BIN_DIR              directory with the built cordon, cordond and cordon-init (default: build/bin in the repo)

options:
  --rounds N           download rounds; each round downloads once per path, the order of the paths rotates
                       between rounds (default 3)
  --size BYTES         bytes per download (default 1073741824, 1 GiB)
  --requests N         small HTTPS requests per path for the set-up latency, each a new curl process and a new
                       connection, in 4 blocks whose path order rotates (default 200; 0 skips this pass)
  --cordond-env VAR=VALUE
                       start cordond with this variable added to its environment (repeatable), e.g.
                       LD_PRELOAD=/tmp/nodelay-preload.so for the experiment in docs/benchmarks.md; the report
                       names it
  --out DIR            keep the raw curl output, the logs and report.md in DIR (default: a temp dir, removed)
  --check              exit 1 when a target is missed: Cordon's median throughput below tinyproxy's, or below
                       half of the direct download's
  --quick              smoke run: --rounds 1 --size 268435456 --requests 20
  -h, --help           this text
EOF
}

die() {
    echo "proxy-benchmarks: $*" >&2
    exit 2
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=build/bin
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    bin_dir=$1
    shift
fi
rounds=3 size=1073741824 requests=200 out_dir="" check=0
cordond_env=()
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=${2:?}; shift 2 ;;
    --size) size=${2:?}; shift 2 ;;
    --requests) requests=${2:?}; shift 2 ;;
    --cordond-env) [[ ${2:?} == [A-Za-z_]*=* ]] || die "--cordond-env takes VAR=VALUE"; cordond_env+=("$2"); shift 2 ;;
    --out) out_dir=${2:?}; shift 2 ;;
    --check) check=1; shift ;;
    --quick) rounds=1 size=268435456 requests=20; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument \`$1'" ;;
    esac
done
for n in "$rounds" "$size" "$requests"; do
    [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
[ "$rounds" -ge 1 ] || die "--rounds must be at least 1"
[ "$size" -ge 1 ] || die "--size must be at least 1"

# ---------------------------------------------------------------------------------------------- prerequisites
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
tinyproxy=$(command -v tinyproxy || command -v /usr/bin/tinyproxy || command -v /usr/sbin/tinyproxy || true)
[ -n "$tinyproxy" ] || missing+=(tinyproxy)
# The system python3: its ssl module is Debian's OpenSSL, like curl's.
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
for program in cordon cordond cordon-init; do
    [ -x "$bin_dir/$program" ] ||
        die "$bin_dir/$program is missing: build it with \`cmake --build BUILD --target cordon cordond cordon-init\`"
done
cordon=$bin_dir/cordon

# No proxy from the caller's environment: each path sets its own.
unset http_proxy https_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY

# A short path: the socket's path must fit in sun_path (108 bytes).
work=$(mktemp -d /tmp/cordon-pbench.XXXXXX)
chmod 0755 "$work"
mkdir -m 0700 "$work/run" "$work/data" "$work/config" "$work/config/cordon"
export CORDON_DATA_DIR=$work/data
export CORDON_SOCKET=$work/run/cordond.sock
export XDG_CONFIG_HOME=$work/config
# Nothing may start a second daemon behind our back: a missing program makes the CLI fail instead.
export CORDON_DAEMON=$work/no-such-cordond
if [ -z "$out_dir" ]; then
    out_dir=$work/results
fi
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
raw=$out_dir/raw
mkdir -p "$raw"

server_pid="" tinyproxy_pid="" daemon_pid="" container=""

# Running, and not a zombie: our children stay zombies until we wait for them.
alive() { # pid
    local stat
    [ -n "$1" ] && stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

# shellcheck disable=SC2317 # invoked through the EXIT trap
cleanup() {
    set +e
    if alive "$daemon_pid"; then
        [ -z "$container" ] || "$cordon" rm --force "$container" >/dev/null 2>&1
        "$cordon" daemon stop >/dev/null 2>&1
        for _ in $(seq 50); do
            alive "$daemon_pid" || break
            sleep 0.1
        done
        # Only the processes this script started, by their pids.
        alive "$daemon_pid" && kill "$daemon_pid" 2>/dev/null
        wait "$daemon_pid" 2>/dev/null
    fi
    for pid in "$tinyproxy_pid" "$server_pid"; do
        if alive "$pid"; then
            kill "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# utime + stime of a whole process (all threads), in clock ticks.
cpu_ticks() { # pid
    local stat
    stat=$(cat "/proc/$1/stat")
    stat=${stat##*) }
    awk '{print $12 + $13}' <<<"$stat"
}
ticks_per_s=$(getconf CLK_TCK)
# Busy, irq + softirq, and total clock ticks of the whole machine (all CPUs) from /proc/stat.
machine_ticks() {
    awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8 + $9, $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit}' /proc/stat
}
TIMEFORMAT='%3U %3S'

# ------------------------------------------------------------------------------------------ CA and the server
echo "proxy-benchmarks: throwaway CA and a certificate for localhost (P-256)" >&2
pki=$work/pki
mkdir "$pki"
(
    cd "$pki"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=cordon-bench-ca \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
        -keyout ca.key -out ca.pem
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
        -keyout server.key -out server.csr
    printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >ext.cnf
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf \
        -out server.pem
) >"$work/openssl.log" 2>&1 || { cat "$work/openssl.log" >&2; die "openssl could not make the certificates"; }
ca=$pki/ca.pem

"$python" "$bench_dir/https-zero-server.py" --cert "$pki/server.pem" --key "$pki/server.key" \
    --port-file "$work/server.port" </dev/null >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
    [ -s "$work/server.port" ] && break
    alive "$server_pid" || { cat "$work/server.log" >&2; die "the HTTPS server exited while starting"; }
    sleep 0.05
done
[ -s "$work/server.port" ] || die "the HTTPS server did not listen within 5 s"
port=$(cat "$work/server.port")
if [ "$size" = 1073741824 ]; then
    path=/1g
else
    path=/bytes/$size
fi
url=https://localhost:$port$path
small_url=https://localhost:$port/small

# ----------------------------------------------------------------------------------------------- tinyproxy
# The equivalent of Cordon's rule {"domain": "localhost", "ports": [PORT]}: clients from 127.0.0.1 only,
# CONNECT only to PORT, and a filter that lets through the host name localhost and nothing else.
tinyport=$(free_port)
printf '^localhost$\n' >"$work/tinyproxy.filter"
cat >"$work/tinyproxy.conf" <<EOF
Port $tinyport
Listen 127.0.0.1
Timeout 600
MaxClients 100
Allow 127.0.0.1
ConnectPort $port
Filter "$work/tinyproxy.filter"
FilterType ere
FilterDefaultDeny Yes
FilterCaseSensitive Yes
LogFile "$work/tinyproxy.log"
LogLevel Warning
DisableViaHeader Yes
EOF
if [ "$(id -u)" = 0 ]; then
    # tinyproxy drops root after binding; nobody can read nothing it needs after that but its log.
    printf 'User nobody\nGroup nogroup\n' >>"$work/tinyproxy.conf"
    touch "$work/tinyproxy.log" && chown nobody:nogroup "$work/tinyproxy.log"
fi
"$tinyproxy" -d -c "$work/tinyproxy.conf" </dev/null >"$work/tinyproxy.out" 2>&1 &
tinyproxy_pid=$!

# -------------------------------------------------------------------------------------------------- cordond
# The organisation list must allow what the container's list allows.
rule="{\"domain\": \"localhost\", \"ports\": [$port], \"allow_private_addresses\": true}"
echo "{\"allowed_domains\": [$rule]}" >"$XDG_CONFIG_HOME/cordon/org-policy.json"
echo "{\"network_policy\": {\"type\": \"allowlist\", \"allowed_domains\": [$rule]}}" >"$work/policy.json"
env ${cordond_env[@]+"${cordond_env[@]}"} "$bin_dir/cordond" </dev/null >"$work/cordond.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do
    alive "$daemon_pid" || { cat "$work/cordond.log" >&2; die "cordond exited while starting"; }
    "$cordon" daemon status >/dev/null 2>&1 && break
    sleep 0.05
done
"$cordon" daemon status >/dev/null 2>&1 || { cat "$work/cordond.log" >&2; die "cordond did not answer within 5 s"; }
container=$("$cordon" create --name proxy-bench --policy "$work/policy.json") ||
    die "cordon create failed (see $work/cordond.log)"
"$cordon" cp "$ca" "$container:ca.pem" >/dev/null || die "cordon cp of the CA failed"
ca_inside=/mnt/data/inputs/ca.pem

for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$tinyport/" 2>/dev/null && break
    [ $? = 7 ] || break # anything but "could not connect" means it listens
    alive "$tinyproxy_pid" || { cat "$work/tinyproxy.out" "$work/tinyproxy.log" >&2; die "tinyproxy exited"; }
    sleep 0.05
done

# ---------------------------------------------------------------------------------------------------- paths
# One curl command line for all three; only the proxy differs. Inside the container HTTPS_PROXY is
# http://127.0.0.1:3128 (the daemon's proxy), set by cordon for every run.
fmt='%{http_code} %{size_download} %{speed_download} %{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total} %{remote_port}\n'
paths=(direct tinyproxy cordon)

run_curl() { # path url count outfile: count curl processes, one line each
    local which=$1 target=$2 count=$3 outfile=$4
    local loop="for i in \$(seq $count); do curl -sS --cacert \"\$CA\" -o /dev/null -w '$fmt' \"\$@\" '$target' || echo curl-failed; done"
    case $which in
    direct) CA=$ca sh -c "$loop" sh >>"$outfile" ;;
    tinyproxy) CA=$ca sh -c "$loop" sh -x "http://127.0.0.1:$tinyport" >>"$outfile" ;;
    cordon) "$cordon" exec "$container" -- env CA="$ca_inside" sh -c "$loop" sh >>"$outfile" 2>>"$raw/cordon-exec.log" ;;
    esac
}

# Each path once with a small request: it must answer 200 through the expected port.
expect_port() {
    case $1 in direct) echo "$port" ;; tinyproxy) echo "$tinyport" ;; cordon) echo 3128 ;; esac
}
for which in "${paths[@]}"; do
    : >"$raw/check-$which.txt"
    run_curl "$which" "$small_url" 1 "$raw/check-$which.txt" || true
    read -r code _ _ _ _ _ _ rport <"$raw/check-$which.txt" || true
    if [ "${code:-}" != 200 ] || [ "${rport:-}" != "$(expect_port "$which")" ]; then
        cat "$raw/check-$which.txt" "$raw/cordon-exec.log" "$work/tinyproxy.log" 2>/dev/null >&2
        die "[$which] the check request failed (status ${code:-none}, port ${rport:-none})"
    fi
done
# The allow rules really are allow rules: another host is refused by both proxies.
deny_tiny=$(curl -s -o /dev/null -w '%{http_connect}' -x "http://127.0.0.1:$tinyport" --cacert "$ca" \
    "https://example.invalid:$port/" 2>/dev/null || true)
deny_cordon=$("$cordon" exec "$container" -- curl -s -o /dev/null -w '%{http_connect}' --cacert "$ca_inside" \
    "https://example.invalid:$port/" 2>/dev/null || true)
echo "proxy-benchmarks: another host through tinyproxy: CONNECT answered ${deny_tiny:-?}; through cordon: ${deny_cordon:-?}" >&2

# ---------------------------------------------------------------------------------------------- throughput
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$raw/downloads.txt"
for ((round = 1; round <= rounds; round++)); do
    order=()
    for ((i = 0; i < ${#paths[@]}; i++)); do
        order+=("${paths[$(((i + round - 1) % ${#paths[@]}))]}")
    done
    for which in "${order[@]}"; do
        : >"$raw/one.txt"
        sp0=$(cpu_ticks "$server_pid") tp0=$(cpu_ticks "$tinyproxy_pid") dp0=$(cpu_ticks "$daemon_pid")
        read -r m0 q0 t0 < <(machine_ticks)
        # The client's CPU: on the host from bash's `time` (curl and its sh), inside the container from the
        # run summary `cordon exec` prints.
        { time run_curl "$which" "$url" 1 "$raw/one.txt"; } 2>"$raw/time.txt" || true
        read -r m1 q1 t1 < <(machine_ticks)
        sp1=$(cpu_ticks "$server_pid") tp1=$(cpu_ticks "$tinyproxy_pid") dp1=$(cpu_ticks "$daemon_pid")
        read -r code bytes speed _ _ _ total _ <"$raw/one.txt" || true
        if [ "${code:-}" != 200 ] || [ "${bytes:-}" != "$size" ]; then
            cat "$raw/one.txt" "$raw/cordon-exec.log" >&2
            die "[$which] round $round: the download failed (status ${code:-none}, ${bytes:-0} of $size bytes)"
        fi
        if [ "$which" = cordon ]; then
            client_s=$(sed -n 's/^cordon: wall [0-9]* ms, cpu \([0-9]*\) ms.*/\1/p' "$raw/cordon-exec.log" | tail -n 1)
            client_s=$(awk -v ms="${client_s:-0}" 'BEGIN {print ms / 1000}')
        else
            client_s=$(awk '{print $1 + $2}' "$raw/time.txt")
        fi
        case $which in tinyproxy) proxy_ticks=$((tp1 - tp0)) ;; cordon) proxy_ticks=$((dp1 - dp0)) ;; *) proxy_ticks=0 ;; esac
        echo "$round $which $(cat "$raw/one.txt") $((sp1 - sp0)) $proxy_ticks $client_s $((m1 - m0)) $((t1 - t0)) $((q1 - q0))" >>"$raw/downloads.txt"
        printf 'proxy-benchmarks: round %d %-9s %8.1f MB/s  %6.2f s\n' "$round" "$which" \
            "$(awk -v s="$speed" 'BEGIN {print s / 1e6}')" "$total" >&2
    done
done

# ------------------------------------------------------------------------------------------------- latency
latency_pass() { # name url requests
    local name=$1 target=$2 count=$3 blocks=4 block i which
    local per_block=$(((count + blocks - 1) / blocks))
    for which in "${paths[@]}"; do : >"$raw/$name-$which.txt"; done
    for ((block = 1; block <= blocks; block++)); do
        for ((i = 0; i < ${#paths[@]}; i++)); do
            which=${paths[$(((i + block - 1) % ${#paths[@]}))]}
            run_curl "$which" "$target" "$per_block" "$raw/$name-$which.txt" || true
        done
        echo "proxy-benchmarks: $name block $block of $blocks done" >&2
    done
}
[ "$requests" = 0 ] || latency_pass latency "$small_url" "$requests"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# -------------------------------------------------------------------------------------------------- report
report=$out_dir/report.md
{
    echo "### HTTPS download: Cordon's CONNECT tunnel vs tinyproxy vs direct loopback, $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    echo "- host: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), kernel $(uname -r), Debian $(cat /etc/debian_version 2>/dev/null || echo unknown)"
    echo "- $(curl --version | head -n 1 | cut -d' ' -f1-2,5), $("$tinyproxy" -v 2>&1 | head -n 1), $("$python" --version 2>&1), $(openssl version | cut -d' ' -f1-2)"
    echo "- cordon: $bin_dir ($("$cordon" --version 2>/dev/null | awk '{print $2}'))"
    echo "- server: bench/https-zero-server.py on 127.0.0.1:$port, TLS with a P-256 certificate for localhost; download \`$path\` ($size bytes)"
    echo "- load average at start: $load_start; at end: $load_end"
    echo "- another host (\`example.invalid\`): tinyproxy answered CONNECT with ${deny_tiny:-?}, cordon with ${deny_cordon:-?}"
    echo
    "$python" - "$raw" "$size" "$requests" "$ticks_per_s" <<'PY'
import os, statistics, sys
raw, size, requests, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
paths = ["direct", "tinyproxy", "cordon"]
names = {"direct": "direct (curl on the host)", "tinyproxy": "tinyproxy (curl -x on the host)",
         "cordon": "cordon (curl inside the container, HTTPS_PROXY)"}
med = statistics.median
rows = {p: [] for p in paths}
for line in open(os.path.join(raw, "downloads.txt")):
    f = line.split()
    rows[f[1]].append({"round": int(f[0]), "speed": float(f[4]), "total": float(f[8]),
                       "server": int(f[10]) / hz, "proxy": int(f[11]) / hz, "client": float(f[12]),
                       "busy": int(f[13]) / hz, "all": int(f[14]) / hz, "irq": int(f[15]) / hz})
for rs in rows.values():
    for r in rs:
        # The CPU time of everything else meanwhile (other users' work, kernel threads such as ksoftirqd,
        # cordon's CLI and cordon-init): a large figure marks a disturbed download. Without
        # CONFIG_IRQ_TIME_ACCOUNTING (Debian's default) the irq and softirq ticks, such as loopback TCP
        # receive work, are also charged to the process they interrupted, so they are not subtracted.
        r["other"] = max(0.0, r["busy"] - r["server"] - r["proxy"] - r["client"])
mbs = lambda v: "%.1f" % (v / 1e6)
gib = size / (1 << 30)
print("#### Throughput (%d round(s), %s per download)\n" % (len(rows["direct"]), "1 GiB" if size == 1 << 30 else "%d bytes" % size))
print("| path | median MB/s | per round MB/s | median time | / direct |")
print("| --- | ---: | --- | ---: | ---: |")
speeds = {p: med([r["speed"] for r in rows[p]]) for p in paths}
for p in paths:
    rs = sorted(rows[p], key=lambda r: r["round"])
    print("| %s | **%s** | %s | %.2f s | %.2fx |" % (
        names[p], mbs(speeds[p]), ", ".join(mbs(r["speed"]) for r in rs), med([r["total"] for r in rs]),
        speeds[p] / speeds["direct"]))
print("\nMB/s is curl's `speed_download` (10^6 bytes per second).\n")
print("CPU seconds per GiB, medians over the rounds (utime + stime from /proc, sampled at the kernel's tick; the "
      "client's from bash `time` on the host and from the run summary of `cordon exec` in the container; the "
      "machine's from /proc/stat, where irq and softirq time is also counted in the process it interrupted):\n")
print("| path | client (curl) | server | proxy | other processes | machine busy | of which irq + softirq | machine busy % |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for p in paths:
    rs = rows[p]
    c = lambda k: "%.2f" % (med([r[k] for r in rs]) / gib)
    print("| %s | %s | %s | %s | %s | %s | %s | %.0f%% |" % (
        p, c("client"), c("server"), "—" if p == "direct" else c("proxy"), c("other"), c("busy"), c("irq"),
        med([100.0 * r["busy"] / r["all"] for r in rs if r["all"] > 0] or [0])))
by_round = {(r["round"], p): r for p in paths for r in rows[p]}
print("\nOther processes per round (direct, tinyproxy, cordon; CPU s): %s." % "; ".join(
    ", ".join("%.2f" % by_round[(n, p)]["other"] for p in paths) for n in sorted({n for n, _ in by_round})))
ct, cd = speeds["cordon"] / speeds["tinyproxy"], speeds["cordon"] / speeds["direct"]
v1 = "met" if ct >= 1.0 else "MISSED"
v2 = "met" if cd >= 0.5 else "MISSED"
print()
print("- cordon / tinyproxy: **%.2fx** (target >= 1.00x: %s)" % (ct, v1))
print("- cordon / direct: **%.2fx** (target >= 0.50x: %s)" % (cd, v2))
open(os.path.join(raw, "verdict"), "w").write("%s %s\n" % (v1, v2))

ms = lambda v: "%.2f ms" % (v * 1000)
p90 = lambda v: sorted(v)[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]


def latency(name, title):
    print("\n#### %s\n" % title)
    print("| path | requests | time_connect | time_appconnect (TLS done) | p90 appconnect | time_starttransfer (first byte) | p90 first byte | failed |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    app = {}
    for p in paths:
        ok, failed = [], 0
        for line in open(os.path.join(raw, "%s-%s.txt" % (name, p))):
            f = line.split()
            if len(f) >= 7 and f[0] == "200":
                ok.append([float(x) for x in f[3:7]])
            else:
                failed += 1
        if not ok:
            print("| %s | 0 | | | | | | %d |" % (names[p], failed))
            continue
        conn, appc, first = [o[0] for o in ok], [o[1] for o in ok], [o[2] for o in ok]
        app[p] = (med(appc), med(first))
        print("| %s | %d | %s | **%s** | %s | %s | %s | %d |" % (
            names[p], len(ok), ms(med(conn)), ms(med(appc)), ms(p90(appc)), ms(med(first)), ms(p90(first)), failed))
    print()
    if "direct" in app:
        for p in ("tinyproxy", "cordon"):
            if p in app:
                print("- %s adds %.2f ms to the set-up (median time_appconnect minus direct) and %.2f ms to the first "
                      "byte" % (p, (app[p][0] - app["direct"][0]) * 1000, (app[p][1] - app["direct"][1]) * 1000))


if requests > 0:
    latency("latency", "Connection set-up latency (a new curl process and connection per request; `/small`: "
            "head and body in one write)")
    print("\nThrough a proxy, `time_connect` is the TCP connect to the proxy and `time_appconnect` includes the "
          "CONNECT exchange, the proxy's lookup and upstream connect, and the TLS handshake with the server.")
PY
} >"$report"
cat "$report"
case $out_dir in
"$work"/*) ;;
*) echo >&2 && echo "proxy-benchmarks: raw curl output and report.md kept in $out_dir" >&2 ;;
esac

if [ "$check" = 1 ]; then
    read -r v1 v2 <"$raw/verdict"
    [ "$v1" = met ] && [ "$v2" = met ] || exit 1
fi
exit 0
