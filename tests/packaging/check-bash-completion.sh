#!/bin/bash
# SPDX-License-Identifier: MIT
# packaging/completions/cordon.bash under bash-completion's own helpers, as bash loads it for Tab: the
# subcommands, options and their values, the command after `exec ID --`, and the ids and names of a real
# cordond's containers (started here on a private socket and data directory), and nothing at all, quickly
# and without starting a daemon, when none runs.
#
# usage: check-bash-completion.sh COMPLETION_FILE BIN_DIR
# Exits 77 (skip) when bash-completion is not installed or this host cannot start a sandbox, unless
# CORDON_MUST_WORK=1 makes that a failure.
set -o pipefail

completion=$1
bin=$2
helpers=/usr/share/bash-completion/bash_completion

skip() {
    if [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
        echo "FAIL (CORDON_MUST_WORK=1): $*"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

[ -r "$helpers" ] || skip "bash-completion is not installed ($helpers)"
if [ ! -x "$bin/cordon" ] || [ ! -x "$bin/cordond" ]; then
    echo "FAIL: no cordon and cordond in $bin"
    exit 1
fi

work=$(mktemp -d /tmp/cordon-compl-XXXXXX)
daemon_pid=
cleanup() {
    if [ -n "$daemon_pid" ]; then
        "$bin/cordon" daemon stop >/dev/null 2>&1 || true
        kill "$daemon_pid" 2>/dev/null && sleep 1
        kill -9 "$daemon_pid" 2>/dev/null
        wait "$daemon_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# The cordon under test is the one on PATH, as an installed one would be; what completion runs is the
# command word, `cordon`.
export PATH=$bin:$PATH
# Everything the daemon and the CLI touch lives in $work; nothing here may start a daemon of its own.
export CORDON_SOCKET=$work/d.sock CORDON_DAEMON=/nonexistent/cordond CORDON_DATA_DIR=$work/data
export XDG_RUNTIME_DIR=$work/run XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/share
export XDG_STATE_HOME=$work/state
mkdir -p "$XDG_RUNTIME_DIR" && chmod 0700 "$XDG_RUNTIME_DIR"

# bash-completion expects an interactive shell's settings; compopt only works inside a real completion.
shopt -s extglob progcomp
# shellcheck source=/dev/null
source "$helpers"
# shellcheck source=/dev/null
source "$completion" || { echo "FAIL: sourcing $completion"; exit 1; }
compopt() { :; }

# Completes LINE (the cursor at its end) as bash does: words split at blanks and at COMP_WORDBREAKS'
# `=` and `:`, which become words of their own. Sets COMPREPLY.
complete_line() {
    local line=$1 token part rest
    COMP_WORDS=()
    for token in $line; do
        rest=$token
        while [[ $rest =~ ^([^=:]*)([=:])(.*)$ ]]; do
            part=${BASH_REMATCH[1]}
            [ -n "$part" ] && COMP_WORDS+=("$part")
            COMP_WORDS+=("${BASH_REMATCH[2]}")
            rest=${BASH_REMATCH[3]}
        done
        [ -n "$rest" ] && COMP_WORDS+=("$rest")
    done
    # A line that ends in a blank completes an empty word.
    [[ $line == *' ' ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    _cordon cordon "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}

# The candidates, one a line (nothing at all for none).
offered() {
    [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
}

# expect LINE WORD...: every WORD is offered; expect_not: none is; expect_only: exactly these are.
# Not `grep -q`: it stops reading at the first match, printf then dies of SIGPIPE, and pipefail turns a
# match into a failure whenever more candidates follow the one looked for.
expect() {
    local line=$1 word
    shift
    complete_line "$line"
    for word in "$@"; do
        offered | grep -xF -- "$word" >/dev/null ||
            fail "\`$line<Tab>\` does not offer \`$word\` (offers: ${COMPREPLY[*]:-nothing})"
    done
}
expect_not() {
    local line=$1 word
    shift
    complete_line "$line"
    for word in "$@"; do
        offered | grep -xF -- "$word" >/dev/null && fail "\`$line<Tab>\` offers \`$word\` (offers: ${COMPREPLY[*]})"
    done
}
expect_only() {
    local line=$1
    shift
    complete_line "$line"
    local got want
    got=$(offered | sort)
    want=$(printf '%s\n' "$@" | sort)
    [ "$got" = "$want" ] || fail "\`$line<Tab>\` offers \`${COMPREPLY[*]:-nothing}\`, not \`$*\`"
}

# The subcommands: every one that `cordon --help` lists.
for command in $("$bin/cordon" --help | awk '/^  [a-z]/ { print $1 }'); do
    expect "cordon " "$command"
done
expect_only "cordon ex" exec
expect_only "cordon da" daemon
expect_only "cordon daemon st" status start stop

# Options and their values.
expect "cordon create --" --policy --name --memory --idle --json --help
expect_only "cordon create --mem" --memory
expect_only "cordon create --memory " 1g 4g 16g 64g
expect_only "cordon run --memory=" 1g 4g 16g 64g
expect_only "cordon run --memory=1" 1g 16g
expect_only "cordon exec --language " python bash node
expect_only "cordon files --scope " inputs outputs workspace
expect_only "cordon history --class o" ok oom
expect "cordon ls -" -q --quiet --names --no-start --all
expect "cordon history purge --" --older-than
expect_not "cordon history purge --" --class
expect "cordon daemon start -- --" --max-containers --allow-degraded
expect_only "cordon network " show allow org
expect "cordon events --kind container.ex" container.expired container.expiring_soon

# Files for file options.
mkdir "$work/files" && touch "$work/files/policy.json" "$work/files/notes.txt"
expect "cordon create --policy $work/files/" "$work/files/policy.json"
expect_not "cordon create --policy $work/files/" "$work/files/notes.txt"
expect "cordon run --input $work/files/no" "$work/files/notes.txt"

# After the container, the command to run is completed as a command, and its own arguments as its own.
expect "cordon exec abc -- ech" echo
expect "cordon exec --timeout 5s abc ech" echo
expect "cordon run --memory 1g -- ech" echo
expect "cordon run ech" echo
expect_not "cordon exec abc -- python3 --timeout " 30s

# No daemon: no candidates, nothing on stderr, no daemon started (CORDON_DAEMON would fail anyway; the
# socket would appear if one were started), and quickly.
started=$(date +%s%N)
errors=$(complete_line "cordon exec " 2>&1 >/dev/null)
complete_line "cordon exec "
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
[ ${#COMPREPLY[@]} -eq 0 ] || fail "without a daemon \`cordon exec <Tab>\` offers ${COMPREPLY[*]}"
[ -z "$errors" ] || fail "without a daemon, completion wrote to stderr: $errors"
[ ! -e "$CORDON_SOCKET" ] || fail "completion created $CORDON_SOCKET"
[ "$elapsed_ms" -lt 5000 ] || fail "without a daemon, completion took $elapsed_ms ms"

# A real daemon with one container.
"$bin/cordon" run --allow-degraded -- /bin/true >/dev/null 2>"$work/probe.err" ||
    skip "cannot start a sandbox on this host: $(cat "$work/probe.err")"
"$bin/cordond" --allow-degraded >"$work/cordond.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 1 150); do
    "$bin/cordon" daemon status >/dev/null 2>&1 && break
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.1
done
if ! "$bin/cordon" daemon status >/dev/null 2>&1; then
    echo "FAIL: cordond did not start:"
    cat "$work/cordond.log"
    exit 1
fi
id=$("$bin/cordon" create --name compl-box --idle 7d 2>"$work/create.err")
[[ $id =~ ^[0-9a-f]{16}$ ]] || { echo "FAIL: cordon create: $id $(cat "$work/create.err")"; exit 1; }

expect "cordon exec " "$id" compl-box
expect "cordon inspect compl" compl-box
expect_only "cordon stop ${id:0:6}" "$id"
expect "cordon rm --force $id " "$id" compl-box
expect "cordon network show " "$id" compl-box
expect "cordon history --container " "$id"
expect "cordon cp $work/files/notes.txt " "compl-box:" "$id:"
# COMP_WORDBREAKS splits at the colon, so what is offered is the rest of the word after it.
expect "cordon cp compl-box:" "outputs/" "inputs/"
expect_not "cordon exec " ""
# Typed with its path, cordon is that program, not the one on PATH.
PATH=${PATH#"$bin:"} expect "$bin/cordon exec " "$id" compl-box

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "bash completion: all checks passed"
