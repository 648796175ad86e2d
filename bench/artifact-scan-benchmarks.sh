#!/bin/bash
# SPDX-License-Identifier: MIT
# The artifact scan's speed on text (docs/benchmarks.md, docs/artifact-scan.md), against GNU grep -P with the
# same patterns, in the same invocation.
#   bench/artifact-scan-benchmarks.sh [BIN_DIR] [--mib N] [--rounds N]
# Writes a corpus of N MiB (default 64) of log- and code-like text with a finding every ~64 KiB, then, in
# rounds of rotating order: the scanner with every rule (artifact-scan-bench scan), the same with one secret
# to find in all its forms, and grep -P -c over the rules joined into one pattern (each rule a group of its
# own). Prints each one's median seconds and MB/s and the ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../build/bin" mib=64 rounds=5
while [ $# -gt 0 ]; do
    case "$1" in
        --mib) mib=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        -h | --help) sed -n 3,10p "$0"; exit 0 ;;
        *) bin=$1 ;;
    esac
    shift
done
tool="$bin/artifact-scan-bench"
[ -x "$tool" ] || { echo "no $tool: build the tree first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" corpus "$work/corpus.txt" "$mib"
"$tool" patterns "$work/patterns.txt"
# One pattern for grep -P (it takes one): each rule in a group, so that a rule's (?i) stays its own.
sed 's/^/(?:/; s/$/)/' "$work/patterns.txt" | paste -sd'|' > "$work/pattern.txt"
bytes=$(stat -c %s "$work/corpus.txt")
cat "$work/corpus.txt" > /dev/null # in the page cache for everyone

measure() { # name command...: seconds
    local start end
    start=$(date +%s.%N)
    # Not /dev/null: GNU grep takes that as -q and stops at the first match.
    "${@:2}" > "$work/out"
    end=$(date +%s.%N)
    echo "$1 $(echo "$end - $start" | bc -l)"
}
for round in $(seq "$rounds"); do
    for variant in rules secret grep; do
        case $variant in
            rules) measure rules env BENCH_NO_SECRETS=1 "$tool" scan "$work/corpus.txt" ;;
            secret) measure secret "$tool" scan "$work/corpus.txt" ;;
            grep) measure grep grep -P -c -f "$work/pattern.txt" "$work/corpus.txt" ;;
        esac
    done
done > "$work/times.txt"
median() { grep "^$1 " "$work/times.txt" | cut -d' ' -f2 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rules=$(median rules) secret=$(median secret) grep_s=$(median grep)
echo "corpus: $mib MiB, $rounds rounds, $(nproc) cores"
printf '%-36s %8s s %8s MB/s\n' "scanner, every rule" "$rules" "$(echo "$bytes / 1000000 / $rules" | bc -l | xargs printf %.1f)"
printf '%-36s %8s s %8s MB/s\n' "scanner, every rule and one secret" "$secret" "$(echo "$bytes / 1000000 / $secret" | bc -l | xargs printf %.1f)"
printf '%-36s %8s s %8s MB/s\n' "grep -P -c, the same rules" "$grep_s" "$(echo "$bytes / 1000000 / $grep_s" | bc -l | xargs printf %.1f)"
printf 'grep -P / scanner (rules): %.2fx; grep -P / scanner (with a secret): %.2fx\n' \
    "$(echo "$grep_s / $rules" | bc -l)" "$(echo "$grep_s / $secret" | bc -l)"
