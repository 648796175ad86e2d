#!/bin/bash
# SPDX-License-Identifier: MIT
# The manuals in packaging/man/: each renders without a warning from man(1) (the check lintian makes), and
# they keep up with the code: cordon.1 has a section for every subcommand that `cordon --help` lists (and for
# the actions with their own --help: `daemon start`, `files rm`, ...) with an entry for every option of its
# --help, and no section for a subcommand that does not exist; cordond.8 has an entry for every option of
# `cordond --help`; and
# cordon-policy.5 has an entry for every key that the policy parser accepts, at every level, as the parser
# itself lists them in its unknown-key error.
#
# usage: check-manpages.sh MAN_DIR BIN_DIR
# Exits 77 (skip) when man(1) is not installed, unless CORDON_MUST_WORK=1 makes that a failure.
set -o pipefail

man_dir=$1
bin=$2
pages=(cordon.1 cordond.8 cordon-workbench.1 cordon-policy.5)

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

if ! command -v man >/dev/null; then
    [ "${CORDON_MUST_WORK:-0}" = 1 ] && { echo "FAIL (CORDON_MUST_WORK=1): man(1) is not installed"; exit 1; }
    echo "SKIP: man(1) is not installed (package man-db)"
    exit 77
fi

work=$(mktemp -d /tmp/cordon-man-XXXXXX)
trap 'rm -rf "$work"' EXIT
# Nothing here may reach or start a daemon: the policy probes below are refused before any connection.
export CORDON_SOCKET=$work/none.sock CORDON_DAEMON=/nonexistent/cordond

# 1. Rendering, as lintian's manpage checks do: any warning of groff or man is a failure.
for page in "${pages[@]}"; do
    [ -f "$man_dir/$page" ] || { fail "$man_dir/$page is missing"; continue; }
    warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
        man --warnings -E UTF-8 -l -Tutf8 -Z "$man_dir/$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "$page renders with warnings:"$'\n'"$warnings"
    head -1 "$man_dir/$page" | grep -q 'SPDX-License-Identifier: MIT' || fail "$page has no SPDX header"
    grep -q '^\.TH [^ ]* [1-8] 2026-12-01 "Cordon 0.1.0"' "$man_dir/$page" ||
        fail "$page: its .TH line does not carry the date 2026-12-01 and the source \"Cordon 0.1.0\""
done

# Plain text, one paragraph to a line (wide enough never to break a line), hyphens as typed.
render() {
    LC_ALL=C.UTF-8 MANWIDTH=2000 man -l "$man_dir/$1" 2>/dev/null | sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g'
}

# The long and short options in a --help text (Qt's QCommandLineParser layout: options indented, first).
options_of() {
    local help
    help=$(cat)
    sed -n 's/^ \{1,4\}\(-[A-Za-z?]\(, \)\{0,1\}\)\{0,1\}\(--[a-z][a-z-]*\).*/\3/p' <<<"$help" |
        grep -vx -e --help -e --help-all
    sed -n 's/^ \{1,4\}\(-[A-Za-z]\), --.*/\1/p' <<<"$help" | grep -vx -e -h -e -v
}

# Whether TEXT (stdin) has an entry for OPTION: an indented paragraph tag (.TP) that starts with it, or with
# its short form and then it ("-q, --quiet").
documents_option() {
    grep -qE -- "^ {7}(-[A-Za-z], )?$1( |,|\$)"
}

# 2. cordon.1 against the command line.
cordon_text=$(render cordon.1)
# The text of every section whose heading starts with "cordon WORDS" (then a blank or the end).
section() {
    awk -v prefix="   cordon $1" '
        /^[A-Z]/ { inside = 0 }
        /^   [^ ]/ { inside = (index($0, prefix " ") == 1 || $0 == prefix) }
        inside' <<<"$cordon_text"
}

commands=$("$bin/cordon" --help | awk '/^  [a-z]/ { print $1 }')
[ -n "$commands" ] || fail "\`cordon --help\` lists no subcommands"
checked=()
check_command() {
    local path=$1 help text option words
    read -ra words <<<"$path"
    help=$("$bin/cordon" "${words[@]}" --help 2>&1) || { fail "\`cordon $path --help\` failed: $help"; return; }
    text=$(section "$path")
    if [ -z "$text" ]; then
        fail "cordon.1 has no section for \`cordon $path\`"
        return
    fi
    checked+=("$path")
    for option in $(options_of <<<"$help"); do
        documents_option "$option" <<<"$text" ||
            fail "cordon.1's \`cordon $path\` section has no entry for $option"
    done
}
for command in $commands; do
    check_command "$command"
    help=$("$bin/cordon" "$command" --help 2>&1)
    # Actions with their own parser: "cordon history purge" in history's help, daemon's indented list.
    actions=$(grep -o "cordon $command [a-z][a-z-]*" <<<"$help" | awk '{ print $3 }')
    [ "$command" = daemon ] && actions+=" $(awk '/^  [a-z]/ { print $1 }' <<<"$help")"
    for action in $(tr ' ' '\n' <<<"$actions" | sort -u); do
        "$bin/cordon" "$command" "$action" --help 2>/dev/null | grep -q "^usage: cordon $command $action" &&
            check_command "$command $action"
    done
done
[ ${#checked[@]} -ge 20 ] || fail "only ${#checked[@]} subcommands were checked: ${checked[*]}"
# And no section for a subcommand that is gone.
while read -r heading; do
    name=$(awk '{ print $2 }' <<<"$heading")
    grep -qx -- "$name" <<<"$commands" || fail "cordon.1 has a section for \`cordon $name\`, which does not exist"
done < <(grep '^   cordon ' <<<"$cordon_text")
for option in --version --help; do
    documents_option "$option" <<<"$cordon_text" || fail "cordon.1 has no entry for $option"
done

# 3. cordond.8 against the daemon.
cordond_text=$(render cordond.8)
for option in $("$bin/cordond" --help | options_of) --help --version; do
    documents_option "$option" <<<"$cordond_text" || fail "cordond.8 has no entry for $option"
done

# 4. cordon-policy.5 against the parser: an unknown key at each level makes it list the keys it knows.
probe_keys() {
    printf '%s' "$1" >"$work/policy.json"
    local refused
    refused=$("$bin/cordon" create --policy "$work/policy.json" 2>&1)
    local keys
    keys=$(sed -n 's/.*unknown key (known keys: \([^)]*\)).*/\1/p' <<<"$refused" | tr -d ',')
    [ -n "$keys" ] || fail "the policy $1 was not refused with the known keys: $refused"
    echo "$keys"
}
for document in \
    '{"zz_unknown": 1}' \
    '{"expires_after": {"zz_unknown": 1}}' \
    '{"limits": {"zz_unknown": 1}}' \
    '{"network_policy": {"zz_unknown": 1}}' \
    '{"network_policy": {"type": "allowlist", "allowed_domains": [{"domain": "a.example", "zz_unknown": 1}]}}' \
    '{"mounts": [{"zz_unknown": 1}]}'; do
    for key in $(probe_keys "$document"); do
        # An entry of its own: a .TP whose tag is the key in bold.
        grep -A1 -x '\.TP' "$man_dir/cordon-policy.5" | grep -qx "\.B $key" ||
            fail "cordon-policy.5 has no entry for the key \`$key\` (from $document)"
    done
done

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "manual pages: ${#pages[@]} rendered without warnings; ${#checked[@]} subcommands checked against --help"
