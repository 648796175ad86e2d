#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The daemon's resident memory under a flood of proxy connection attempts from a sandbox (issue 39): a
# container with an allowlist opens N connections to its egress proxy per round, a mix of allowed requests
# to a loopback upstream, requests for refused hosts (each a new name), refused CONNECTs and connections
# closed without a request. The daemon's VmRSS and open descriptors are read before the first round and after
# each one, once the proxy's lingering closes and the ledger's coalescing windows are over. A round that does
# not grow what the previous one left is the allocator keeping freed memory; growth every round is a leak.
# See docs/benchmarks.md.
#
#   bench/proxy-memory.sh [BIN_DIR] [options]
#
# BIN_DIR holds the built `cordon`, `cordon-cli`, `cordond` and `cordon-init` (default: build/bin relative to
# the repository root). Starts its own cordond (private socket, data and config directories) and a loopback
# HTTP server; installs nothing. Needs python3.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/proxy-memory.sh [BIN_DIR] [options]

  BIN_DIR              directory with the built cordon, cordon-cli, cordond and cordon-init (default: build/bin)

options:
  --connections N      connection attempts per round (default 46000)
  --parallel N         connections open at once: each batch of N is opened and sent its requests before
                       any answer is read (default 1; the proxy serves 64 per container, the rest get 429)
  --rounds N           rounds (default 3)
  --settle SEC         pause after each round before memory is read (default 15: the lingering closes end
                       within 5 s, the ledger's coalescing windows within 11 s)
  --wrap CMD           start cordond under CMD (e.g. "heaptrack -o /tmp/cordond"); the figures are then the
                       wrapper's too
  --out DIR            keep the daemon's log and report.md in DIR (default: a temp dir, removed)
  -h, --help           this text
EOF
}

die() {
    echo "proxy-memory: $*" >&2
    exit 2
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=$repo_root/build/bin
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    bin_dir=$1
    shift
fi
connections=46000 parallel=1 rounds=3 settle=15 wrap="" out_dir=""
while [ $# -gt 0 ]; do
    case $1 in
    --connections) connections=${2:?}; shift 2 ;;
    --parallel) parallel=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --settle) settle=${2:?}; shift 2 ;;
    --wrap) wrap=${2:?}; shift 2 ;;
    --out) out_dir=${2:?}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument \`$1'" ;;
    esac
done
for n in "$connections" "$parallel" "$rounds" "$settle"; do
    [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
python=$(command -v /usr/bin/python3 || command -v python3 || true)
[ -n "$python" ] || die "python3 is needed"
for program in cordon cordon-cli cordond cordon-init; do
    [ -x "$bin_dir/$program" ] || die "no $bin_dir/$program (build it first)"
done

# shellcheck source=lib/private-daemon.sh
. "$bench_dir/lib/private-daemon.sh"
private_daemon_init cordon-proxy-memory
export XDG_CONFIG_HOME=$work/config
mkdir -p "$XDG_CONFIG_HOME/cordon"
server_pid=""
before_daemon_cleanup() {
    [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null
    if [ -n "$out_dir" ]; then
        mkdir -p "$out_dir"
        cp "$work/cordond.log" "$work/report.md" "$out_dir/" 2>/dev/null
    fi
}

# A loopback upstream that answers every request at once and closes.
cat >"$work/server.py" <<'EOF'
import socket, sys, threading
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(512)
with open(sys.argv[1], "w") as f:
    f.write(str(listener.getsockname()[1]))
def serve(s):
    try:
        s.recv(65536)
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    finally:
        s.close()
while True:
    s, _ = listener.accept()
    threading.Thread(target=serve, args=(s,), daemon=True).start()
EOF
"$python" "$work/server.py" "$work/server.port" </dev/null >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
    [ -s "$work/server.port" ] && break
    sleep 0.05
done
[ -s "$work/server.port" ] || die "the upstream server did not listen within 5 s"
port=$(cat "$work/server.port")

rule="{\"domain\": \"localhost\", \"ports\": [$port], \"allow_private_addresses\": true}"
echo "{\"allowed_domains\": [$rule]}" >"$XDG_CONFIG_HOME/cordon/org-policy.json"
echo "{\"network_policy\": {\"type\": \"allowlist\", \"allowed_domains\": [$rule]}}" >"$work/policy.json"

if [ -n "$wrap" ]; then
    # shellcheck disable=SC2086 # the wrapper is a command line
    $wrap "$bin_dir/cordond" </dev/null >"$work/cordond.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 600); do
        "$cordon" daemon status >/dev/null 2>&1 && break
        sleep 0.05
    done
    "$cordon" daemon status >/dev/null 2>&1 || die "cordond did not answer within 30 s"
else
    start_daemon
fi
# The process that holds the memory: the daemon itself, also under a wrapper (the newest process running
# this very binary).
cordond_pid=$daemon_pid
exe=$(readlink -f "$bin_dir/cordond")
for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/exe" 2>/dev/null)" = "$exe" ] && [ "${proc#/proc/}" -gt "$cordond_pid" ] &&
        cordond_pid=${proc#/proc/}
done
[ -r "/proc/$cordond_pid/status" ] || die "cannot read /proc/$cordond_pid/status"

container=$("$cordon" create --name proxy-memory --policy "$work/policy.json") ||
    die "cordon create failed (see $work/cordond.log)"
created+=("$container")

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$cordond_pid/status"; }
fds() { find "/proc/$cordond_pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }

# One round inside the container: allowed GETs, refused GETs to a new name each time, refused CONNECTs, and
# connections closed without a request, in turn. Prints the answers it counted.
flood="
import socket, sys
n, port, parallel = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
seen = {}
def request(i):
    kind = i % 4
    if kind == 0:
        return b'GET http://localhost:%d/ HTTP/1.1\\r\\nHost: localhost:%d\\r\\n\\r\\n' % (port, port)
    if kind == 1:
        return b'GET http://h%d.example/ HTTP/1.1\\r\\nHost: h%d.example\\r\\n\\r\\n' % (i, i)
    if kind == 2:
        return b'CONNECT refused.example:443 HTTP/1.1\\r\\nHost: refused.example:443\\r\\n\\r\\n'
    return b''
def answer(s, sent):
    if not sent:
        return 'closed'
    try:
        line = s.recv(4096).split(b'\\r\\n', 1)[0]
        return line.split(b' ')[1].decode() if line.count(b' ') >= 1 else 'none'
    except OSError:
        return 'reset'
i = 0
while i < n:
    batch = []
    for j in range(min(parallel, n - i)):
        s = socket.create_connection(('127.0.0.1', 3128))
        s.settimeout(30)
        r = request(i)
        if r:
            s.sendall(r)
        batch.append((s, r))
        i += 1
    for s, r in batch:
        code = answer(s, r)
        s.close()
        seen[code] = seen.get(code, 0) + 1
print(' '.join('%s=%d' % kv for kv in sorted(seen.items())))
"

report=$work/report.md
{
    echo "# Daemon memory under proxy connection attempts"
    echo
    echo "$connections attempts per round, $parallel at a time; cordond $("$bin_dir/cordond" --version 2>/dev/null | head -1)"
    echo
    echo "| after | VmRSS (MiB) | open fds | seconds | answers |"
    echo "| --- | --- | --- | --- | --- |"
} >"$report"
sleep 2
printf '| start | %.1f | %d | | |\n' "$(echo "$(rss_kib) / 1024" | bc -l)" "$(fds)" | tee -a "$report"
for ((round = 1; round <= rounds; round++)); do
    started=$(date +%s)
    answers=$("$cordon" exec "$container" -- python3 -c "$flood" "$connections" "$port" "$parallel") ||
        die "round $round failed: $answers (see $work/cordond.log)"
    took=$(($(date +%s) - started))
    sleep "$settle"
    printf '| round %d | %.1f | %d | %d | %s |\n' "$round" "$(echo "$(rss_kib) / 1024" | bc -l)" "$(fds)" \
        "$took" "$answers" | tee -a "$report"
done
