#!/bin/bash
# SPDX-License-Identifier: MIT
# The zsh and fish completions in packaging/completions/: the shell parses them, loads them as it would from
# its completion directory without an error, and (fish, which can complete a line non-interactively) offers
# the subcommands, an option and its values, and the command after `exec ID --`.
#
# usage: check-shell-completion.sh zsh|fish COMPLETION_FILE
# Exits 77 (skip) when the shell is not installed, unless CORDON_MUST_WORK=1 makes that a failure.
set -o pipefail

shell=$1
file=$2

if ! command -v "$shell" >/dev/null; then
    [ "${CORDON_MUST_WORK:-0}" = 1 ] && { echo "FAIL (CORDON_MUST_WORK=1): $shell is not installed"; exit 1; }
    echo "SKIP: $shell is not installed"
    exit 77
fi

work=$(mktemp -d /tmp/cordon-shell-XXXXXX)
trap 'rm -rf "$work"' EXIT
# No daemon may be reached or started while completing.
export CORDON_SOCKET=$work/none.sock CORDON_DAEMON=/nonexistent/cordond HOME=$work

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

case $shell in
    zsh)
        errors=$(zsh -n "$file" 2>&1) || fail "zsh -n $file: $errors"
        # compinit reads the #compdef line of every _* file on fpath: cordon must end up completed by _cordon.
        cp "$file" "$work/_cordon"
        registered=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$1/zcompdump"
            print -r -- $_comps[cordon]' zsh "$work" 2>&1)
        [ "$registered" = _cordon ] || fail "compinit does not register _cordon for cordon: $registered"
        ;;
    fish)
        errors=$(fish --no-execute "$file" 2>&1) || fail "fish --no-execute $file: $errors"
        errors=$(fish --no-config -c "source '$file'" 2>&1)
        [ -z "$errors" ] || fail "loading $file: $errors"
        # complete -C LINE prints what Tab offers for LINE: one candidate a line, a tab before its description.
        offers() {
            fish --no-config -c "source '$file'; complete -C '$1'" 2>&1 | cut -f1
        }
        expect() {
            local line=$1 word got
            shift
            got=$(offers "$line")
            for word in "$@"; do
                grep -qxF -- "$word" <<<"$got" || fail "\`$line<Tab>\` does not offer \`$word\`: $got"
            done
        }
        expect "cordon " run create ls inspect exec cp files stop start keepalive rm logs history events \
            network daemon demo doctor cgroup-delegate
        expect "cordon create --mem" --memory
        expect "cordon create --memory " 1g 4g 16g 64g
        expect "cordon exec --language " python bash node
        expect "cordon daemon " status start stop time-scale
        expect "cordon history purge --" --older-than
        expect "cordon exec abc -- ech" echo
        expect "cordon run --memory 1g ech" echo
        # No daemon: no containers, and no error either.
        got=$(offers "cordon exec ")
        [ -z "$got" ] || fail "without a daemon, \`cordon exec <Tab>\` offers: $got"
        [ ! -e "$CORDON_SOCKET" ] || fail "completion created $CORDON_SOCKET"
        ;;
    *)
        echo "usage: check-shell-completion.sh zsh|fish FILE" >&2
        exit 2
        ;;
esac

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "$shell completion: all checks passed"
