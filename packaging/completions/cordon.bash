# SPDX-License-Identifier: MIT
# bash completion for cordon(1), installed as /usr/share/bash-completion/completions/cordon.
# The subcommands and options are those of each `cordon <command> --help` (app/cordon/); containers are asked
# from a daemon that is already running, never from one started for the purpose (`cordon ls --no-start`).
# COMPREPLY=($(compgen ...)) is bash-completion's own idiom; no candidate here contains a blank.
# shellcheck disable=SC2207

# Ids and names of the daemon's running and stopped containers (with --all also expired and deleted ones),
# one per line; nothing when no daemon runs. The cordon being completed answers, so that a build tree's
# cordon asks the daemon it would talk to. `timeout` keeps a daemon that does not answer from hanging Tab.
_cordon_containers()
{
    local cordon=${COMP_WORDS[0]} all=
    __expand_tilde_by_ref cordon
    [[ $cordon == */* && -x $cordon ]] || cordon=cordon
    [[ ${1-} == --all ]] && all=--all
    timeout 3 "$cordon" ls $all --quiet --no-start 2>/dev/null
    timeout 3 "$cordon" ls $all --names --no-start 2>/dev/null
}

_cordon_complete_containers()
{
    local IFS=$'\n'
    COMPREPLY+=($(compgen -W "$(_cordon_containers "$@")" -- "$cur"))
}

# The options of each subcommand; those that take a value are also in _cordon_value_options.
_cordon_options()
{
    case $1 in
        run) echo --policy --memory --timeout --input --output-dir --force --keep-both --json --stdin --allow-degraded --help ;;
        create) echo --policy --name --memory --idle --demo --json --help ;;
        ls) echo -a --all --audits --json -q --quiet --names --no-start --help ;;
        inspect | stop | start | keepalive | logs) echo --json --help ;;
        exec) echo --stdin --language --code --code-file --timeout --key --json --help ;;
        cp) echo --workspace -f --force --keep-both --override-scan --pseudonymize --pseudonym-key --csv-header --json --help ;;
        files) echo --scope --scan --json --help ;;
        "files rm") echo --scope --help ;;
        rm) echo -f --force --json --help ;;
        history) echo --container --class --search --audits --limit --offset --json --help ;;
        "history purge") echo --older-than --yes --json --help ;;
        events) echo --container --kind --run --audits --limit -f --follow --json --help ;;
        network) echo --json --reload --help ;;
        secret) echo --json --from-file --pseudonym-key --help ;;
        "daemon status" | "daemon time-scale") echo --json --help ;;
        "daemon start") echo --time-scale --help ;;
        "daemon stop" | doctor) echo --help ;;
        demo) echo --allow-degraded --help ;;
        audit) echo --policy --container --out --row --json --name --role --decision --date --key --keyring --help ;;
        cgroup-delegate) echo --user --favor-dynmods --help ;;
    esac
}

_cordon_value_options='--policy --memory --timeout --input --output-dir --name --idle --language --code
    --code-file --key --scope --container --class --limit --offset --older-than --kind --run --time-scale --user
    --from-file --override-scan --pseudonymize --pseudonym-key --csv-header --out --row --name --role --decision --date --key
    --keyring'

# Completes the value of option $1 into COMPREPLY.
_cordon_option_value()
{
    case $1 in
        --policy) _filedir json ;;
        --keyring) _filedir ;;
        --input | --code-file | --from-file) _filedir ;;
        --output-dir) _filedir -d ;;
        --memory) COMPREPLY=($(compgen -W '1g 4g 16g 64g' -- "$cur")) ;;
        --timeout) COMPREPLY=($(compgen -W '30s 1m 5m 10m 1h' -- "$cur")) ;;
        --idle) COMPREPLY=($(compgen -W '20m 1h 2h 1d 7d' -- "$cur")) ;;
        --language) COMPREPLY=($(compgen -W 'python bash node' -- "$cur")) ;;
        --scope) COMPREPLY=($(compgen -W 'inputs outputs workspace' -- "$cur")) ;;
        --csv-header) COMPREPLY=($(compgen -W 'auto yes no' -- "$cur")) ;;
        --class)
            COMPREPLY=($(compgen -W 'ok nonzero_exit oom timeout killed setup_failed' -- "$cur"))
            ;;
        --older-than) COMPREPLY=($(compgen -W '7d 30d 90d 365d' -- "$cur")) ;;
        --time-scale) COMPREPLY=($(compgen -W '1 60 600 3600' -- "$cur")) ;;
        --kind)
            COMPREPLY=($(compgen -W 'container. run. file. network. daemon.
                container.created container.started container.stopped container.restarted
                container.restart_failed container.died container.expiring_soon container.expired
                container.kept_alive container.deleted container.oom_kill run.started run.finished
                run.cancelled file.uploaded file.downloaded file.deleted network.allowed network.denied
                network.error network.policy_changed network.proxy_failed network.org_policy_reloaded
                network.org_policy_invalid secret.set secret.replaced secret.removed daemon.runs_interrupted
                daemon.time_scale' -- "$cur"))
            [[ ${COMPREPLY-} == *. ]] && compopt -o nospace
            ;;
        --container)
            # History outlives containers: it also takes the ids of expired and deleted ones.
            _cordon_complete_containers --all
            ;;
        --user) COMPREPLY=($(compgen -u -- "$cur")) ;;
    esac
}

_cordon_takes_value()
{
    [[ " ${_cordon_value_options//$'\n'/ } " == *" $1 "* ]]
}

# The index in COMP_WORDS of words[$1]: _init_completion joins the words that `=` and `:` split in COMP_WORDS
# back together, and _command_offset counts in COMP_WORDS.
_cordon_comp_words_index()
{
    local i j=0 joined
    for ((i = 0; i < $1; i++)); do
        joined=
        while ((j < ${#COMP_WORDS[@]})) && [[ $joined != "${words[i]}" ]]; do
            joined+=${COMP_WORDS[j++]}
        done
        if [[ $joined != "${words[i]}" ]]; then
            echo $((COMP_CWORD - cword + $1))
            return
        fi
    done
    echo "$j"
}

_cordon()
{
    local commands='run create ls inspect exec cp files stop start keepalive rm logs history events network
        secret daemon audit demo doctor cgroup-delegate'
    local cur prev words cword split
    _init_completion -s -n : || return
    local command=${words[1]-}

    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    # The action of files, history, network and daemon, and where the positional arguments start.
    local key=$command first=2
    case $command in
        files | history)
            if [[ ${words[2]-} == @(rm|purge) ]] && ((cword > 2)); then
                [[ $command == files && ${words[2]} == rm ]] && key="files rm" first=3
                [[ $command == history && ${words[2]} == purge ]] && key="history purge" first=3
            fi
            ;;
        daemon)
            if ((cword == 2)); then
                COMPREPLY=($(compgen -W 'status start stop time-scale --help' -- "$cur"))
                return
            fi
            key="daemon ${words[2]}" first=3
            ;;
    esac

    # The positional arguments before the cursor, skipping options and their values; with run and exec the
    # command to run starts at `offset`, and what follows it is that command's to complete.
    local i word positional=() endopts='' offset=''
    for ((i = first; i < cword; i++)); do
        word=${words[i]}
        # exec: `--` after ID is where the command starts.
        if [[ $command == exec && $word == -- && ${#positional[@]} -eq 1 ]]; then
            offset=$((i + 1))
            break
        fi
        if [[ ! $endopts && $word == -- ]]; then
            endopts=1
            continue
        fi
        if [[ ! $endopts && $word == -?* ]]; then
            [[ $word != *=* ]] && _cordon_takes_value "$word" && ((i++))
            continue
        fi
        positional+=("$word")
        if [[ $command == run ]]; then
            offset=$i
            break
        fi
        if [[ $command == exec && ${#positional[@]} -eq 2 ]]; then
            offset=$i
            break
        fi
    done
    if [[ $offset ]]; then
        _command_offset "$(_cordon_comp_words_index "$offset")"
        return
    fi

    if [[ $prev == -* ]] && _cordon_takes_value "$prev"; then
        _cordon_option_value "$prev"
        return
    fi
    # --flag=value of an option that takes no value: nothing to offer.
    [[ $split == true ]] && return

    if [[ ! $endopts && $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_cordon_options "$key")" -- "$cur"))
        return
    fi

    local count=${#positional[@]}
    case $key in
        run)
            # The command to run, when it is the word under the cursor.
            COMPREPLY=($(compgen -c -- "$cur"))
            ;;
        exec)
            if ((count == 0)); then
                _cordon_complete_containers
            else
                COMPREPLY=($(compgen -c -- "$cur"))
            fi
            ;;
        inspect | "files" | "files rm")
            ((count == 0)) && _cordon_complete_containers
            [[ $key == files && $count -eq 0 ]] && COMPREPLY+=($(compgen -W 'rm' -- "$cur"))
            ;;
        stop | start | keepalive | rm)
            _cordon_complete_containers
            ;;
        history)
            ((count == 0)) && COMPREPLY=($(compgen -W 'purge' -- "$cur"))
            ;;
        network)
            if ((count == 0)); then
                COMPREPLY=($(compgen -W 'show allow org' -- "$cur"))
            elif ((count == 1)) && [[ ${positional[0]} == @(show|allow) ]]; then
                _cordon_complete_containers
            fi
            ;;
        secret)
            ((count == 0)) && COMPREPLY=($(compgen -W 'set ls rm' -- "$cur"))
            ;;
        "daemon start")
            # After --, cordond's own options.
            [[ $endopts ]] && COMPREPLY=($(compgen -W '--time-scale --max-containers --max-runs --sample-hz
                --expiring-soon --allow-degraded --network-rows-per-run' -- "$cur"))
            ;;
        "daemon time-scale")
            ((count == 0)) && COMPREPLY=($(compgen -W '1 60 600 3600' -- "$cur"))
            ;;
        cp)
            if [[ $cur == *:* ]]; then
                # Inside a container: the two folders that need no --workspace.
                local id=${cur%%:*}
                COMPREPLY=($(compgen -W "$id:outputs/ $id:inputs/" -- "$cur"))
                compopt -o nospace
            elif ((count < 2)); then
                _filedir
                local IFS=$'\n' ref
                for ref in $(_cordon_containers); do
                    [[ $ref == "$cur"* ]] && COMPREPLY+=("$ref:")
                done
                [[ ${#COMPREPLY[@]} -gt 0 && ${COMPREPLY[-1]} == *: ]] && compopt -o nospace
            fi
            __ltrim_colon_completions "$cur"
            ;;
    esac
} &&
    complete -F _cordon cordon
