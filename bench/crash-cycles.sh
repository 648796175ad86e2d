#!/bin/bash
# SPDX-License-Identifier: MIT
# The crash test of the suite (tests/integration/tst_daemoncrash.cpp) for many cycles: cordond killed with
# SIGKILL at random moments and inside saves while containers take uploads, appending execs, stops and a long
# run; after each restart every acknowledged exec and upload must be there. Prints the test's own figure line
# (kills, acknowledged execs, uploads and stops, how many lost) as root and, when run as root, as the
# unprivileged user the suite uses. docs/benchmarks.md, "Nothing acknowledged is lost", quotes it.
#   bench/crash-cycles.sh BIN_DIR [CYCLES]     (default 30 cycles)
set -euo pipefail
bin_dir=$(cd "${1:?usage: bench/crash-cycles.sh BIN_DIR [CYCLES]}" && pwd)
export CORDON_CRASH_CYCLES=${2:-30}
here=$(cd "$(dirname "$0")/.." && pwd)

run() {
    local who=$1
    shift
    local output
    output=$("$@" 2>&1) || { echo "$output" | tail -20; echo "FAILED ($who)"; return 1; }
    echo "$who: $(echo "$output" | grep -o '[0-9]* kills:.*lost')"
}

run "$(id -un)" "$bin_dir/tst_daemoncrash"
if [ "$(id -u)" = 0 ]; then
    run cordon-test "$here/tests/run-unprivileged.sh" "$bin_dir" tst_daemoncrash
fi
