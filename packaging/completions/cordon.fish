# SPDX-License-Identifier: MIT
# fish completion for cordon(1), installed as /usr/share/fish/vendor_completions.d/cordon.fish.
# The subcommands and options are those of each `cordon <command> --help` (app/cordon/); containers are asked
# from a daemon that is already running, never from one started for the purpose (`cordon ls --no-start`).

# The options that take a value, whose value is no positional argument.
set -g __cordon_value_options --policy --memory --timeout --input --output-dir --name --idle --language \
    --code --code-file --key --scope --container --class --limit --offset --older-than --kind --run \
    --time-scale --user

# True when the subcommand is $argv[1] (and its action $argv[2], when given).
function __cordon_is
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and test "$tokens[2]" = "$argv[1]"; or return 1
    if set -q argv[2]
        test (count $tokens) -ge 3; and test "$tokens[3]" = "$argv[2]"; or return 1
    end
    return 0
end

# The positional arguments of the subcommand so far (after its action, for files rm, history purge and the
# daemon's), skipping options and their values; for run and exec only those before the command to run.
function __cordon_positionals
    set -l tokens (commandline -opc)
    set -l first 3
    switch "$tokens[2]"
        case daemon
            set first 4
        case files history
            contains -- "$tokens[3]" rm purge; and set first 4
    end
    set -l endopts 0
    set -l skip 0
    for token in $tokens[$first..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        if test $endopts -eq 0; and test "$token" = --
            set endopts 1
            continue
        end
        if test $endopts -eq 0; and string match -q -- '-?*' $token
            if not string match -q -- '*=*' $token; and contains -- $token $__cordon_value_options
                set skip 1
            end
            continue
        end
        echo $token
    end
end

# The number of tokens before the command that run or exec runs, once the cursor is past its start.
function __cordon_command_offset
    set -l tokens (commandline -opc)
    contains -- "$tokens[2]" run exec; or return 1
    set -l seen 0
    set -l skip 0
    set -l endopts 0
    for index in (seq 3 (count $tokens))
        set -l token $tokens[$index]
        if test $skip -eq 1
            set skip 0
            continue
        end
        # exec: `--` after ID is where the command starts.
        if test "$tokens[2]" = exec; and test $seen -eq 1; and test "$token" = --
            echo $index
            return 0
        end
        if test $endopts -eq 0; and test "$token" = --
            set endopts 1
            continue
        end
        if test $endopts -eq 0; and string match -q -- '-?*' $token
            if not string match -q -- '*=*' $token; and contains -- $token $__cordon_value_options
                set skip 1
            end
            continue
        end
        set seen (math $seen + 1)
        if test "$tokens[2]" = run; or test $seen -eq 2
            echo (math $index - 1)
            return 0
        end
    end
    return 1
end

# Completes the command that run or exec runs, and its arguments by its own completion.
function __cordon_complete_command
    set -l offset (__cordon_command_offset); or return
    set -l tokens (commandline -opc)
    set -l inner $tokens[(math $offset + 1)..-1]
    if test (count $inner) -eq 0
        __fish_complete_command
    else
        complete -C (string join ' ' -- (string escape -- $inner) (commandline -ct))
    end
end

function __cordon_in_command
    __cordon_command_offset >/dev/null
end

# True when no positional argument has been given yet (and the command to run has not started).
function __cordon_first_argument
    not __cordon_in_command; and test (count (__cordon_positionals)) -eq 0
end

# Ids and names of the daemon's containers (with --all also expired and deleted ones); none when no daemon
# runs. The cordon being completed answers, so that a build tree's cordon asks the daemon it would talk to;
# `timeout` keeps a daemon that does not answer from hanging Tab.
function __cordon_containers
    set -l cordon (commandline -opc)[1]
    set cordon (string replace -r '^~' $HOME -- $cordon)
    string match -q -- '*/*' $cordon; and test -x $cordon; or set cordon cordon
    timeout 3 $cordon ls $argv --quiet --no-start 2>/dev/null
    timeout 3 $cordon ls $argv --names --no-start 2>/dev/null
end

# cp: local files come from -F; this adds `ID:` and `NAME:`, or inside a container its two folders.
function __cordon_cp_candidates
    set -l current (commandline -ct)
    if string match -q -- '*:*' $current
        set -l ref (string split -m 1 : -- $current)[1]
        printf '%s\n' $ref:outputs/ $ref:inputs/
        return
    end
    for ref in (__cordon_containers)
        echo $ref:
    end
end

complete -c cordon -f

# Subcommands.
set -l nosub 'test (count (commandline -opc)) -eq 1'
complete -c cordon -n $nosub -s h -l help -d 'List the subcommands'
complete -c cordon -n $nosub -l version -d 'Print the version'
complete -c cordon -n $nosub -a run -d 'Run a command in a throw-away sandbox'
complete -c cordon -n $nosub -a create -d 'Create and start a long-lived container'
complete -c cordon -n $nosub -a ls -d 'List containers and their idle countdown'
complete -c cordon -n $nosub -a inspect -d 'Show one container in detail'
complete -c cordon -n $nosub -a exec -d 'Run a command or code in a container'
complete -c cordon -n $nosub -a cp -d 'Copy files into or out of a container'
complete -c cordon -n $nosub -a files -d "List a container's files"
complete -c cordon -n $nosub -a stop -d 'Stop containers: processes end, files stay'
complete -c cordon -n $nosub -a start -d 'Start stopped containers again'
complete -c cordon -n $nosub -a keepalive -d "Reset containers' idle countdown"
complete -c cordon -n $nosub -a rm -d 'Delete containers and their files'
complete -c cordon -n $nosub -a logs -d "Print a finished run's output"
complete -c cordon -n $nosub -a history -d 'List recorded runs'
complete -c cordon -n $nosub -a events -d 'List recorded events, or follow new ones'
complete -c cordon -n $nosub -a network -d "A container's allowlist and its proxy decisions"
complete -c cordon -n $nosub -a secret -d "The host's secrets for runs (values never shown)"
complete -c cordon -n $nosub -a daemon -d 'Status, start, stop or time scale of cordond'
complete -c cordon -n $nosub -a audit -d "Prove a policy's claims with live probes: Go/No-Go"
complete -c cordon -n $nosub -a demo -d 'Run hostile programs and show what contained them'
complete -c cordon -n $nosub -a doctor -d 'Report what this host offers for isolation'
complete -c cordon -n $nosub -a cgroup-delegate -d 'Delegate a cgroup subtree to a user'

# Every subcommand answers --help.
complete -c cordon -n "not $nosub; and not __cordon_in_command" -s h -l help -d 'Show the options'

# run
set -l run '__cordon_is run; and not __cordon_in_command'
complete -c cordon -n $run -l policy -r -F -d 'Container policy JSON file'
complete -c cordon -n $run -l memory -x -a '1g 4g 16g 64g' -d 'Memory limit'
complete -c cordon -n $run -l timeout -x -a '30s 1m 5m 10m 1h' -d 'Wall-time limit'
complete -c cordon -n $run -l input -r -F -d 'Copy a host file into /mnt/data/inputs'
complete -c cordon -n $run -l output-dir -x -a '(__fish_complete_directories)' -d 'Copy /mnt/data/outputs here'
complete -c cordon -n $run -l force -d 'Replace a file of an output\'s name in --output-dir'
complete -c cordon -n $run -l keep-both -d 'Save an output whose name is taken as NAME (2).EXT'
complete -c cordon -n $run -l json -d 'Print the outcome as JSON'
complete -c cordon -n $run -l stdin -d 'Pass stdin to the run'
complete -c cordon -n $run -l allow-degraded -d 'Run without cgroup limits'
complete -c cordon -n '__cordon_is run; and __cordon_first_argument' -a '(__fish_complete_command)'
complete -c cordon -n '__cordon_in_command' -a '(__cordon_complete_command)'

# create
set -l create '__cordon_is create'
complete -c cordon -n $create -l policy -r -F -d 'Container policy JSON file'
complete -c cordon -n $create -l name -x -d "The container's name"
complete -c cordon -n $create -l memory -x -a '1g 4g 16g 64g' -d 'Memory limit'
complete -c cordon -n $create -l idle -x -a '20m 1h 2h 1d 7d' -d 'Expire after this long without activity'
complete -c cordon -n $create -l demo -d 'A demo container: it follows the demo clock'
complete -c cordon -n $create -l json -d "Print the daemon's result as JSON"

# ls
set -l ls '__cordon_is ls'
complete -c cordon -n $ls -s a -l all -d 'Also list expired and deleted containers'
complete -c cordon -n $ls -l audits -d 'Also list the containers of Go/No-Go audits'
complete -c cordon -n $ls -l json -d "Print the daemon's result as JSON"
complete -c cordon -n $ls -s q -l quiet -d 'Print only the ids, one per line'
complete -c cordon -n $ls -l names -d 'Print only the names, one per line'
complete -c cordon -n $ls -l no-start -d 'Do not start cordond when it is not running'

# Commands that take containers.
for command in inspect stop start keepalive rm logs
    complete -c cordon -n "__cordon_is $command" -l json -d "Print the daemon's result as JSON"
end
complete -c cordon -n '__cordon_is inspect; and __cordon_first_argument' -a '(__cordon_containers)'
for command in stop start keepalive rm
    complete -c cordon -n "__cordon_is $command" -a '(__cordon_containers)'
end
complete -c cordon -n '__cordon_is rm' -s f -l force -d 'Delete running containers too'

# exec
set -l exec '__cordon_is exec; and not __cordon_in_command'
complete -c cordon -n $exec -l stdin -d 'Forward stdin to the run'
complete -c cordon -n $exec -l language -x -a 'python bash node' -d 'Run code instead of a command'
complete -c cordon -n $exec -l code -x -d 'The code to run'
complete -c cordon -n $exec -l code-file -r -F -d 'Read the code from a file'
complete -c cordon -n $exec -l timeout -x -a '30s 1m 5m 10m 1h' -d 'Wall-time limit'
complete -c cordon -n $exec -l key -x -d 'Idempotency key'
complete -c cordon -n $exec -l json -d 'Print the final result as JSON'
complete -c cordon -n '__cordon_is exec; and __cordon_first_argument' -a '(__cordon_containers)'
complete -c cordon -n '__cordon_is exec; and not __cordon_first_argument; and not __cordon_in_command' \
    -a '(__fish_complete_command)'

# cp
complete -c cordon -n '__cordon_is cp' -l workspace -d 'Allow downloading from the whole workspace'
complete -c cordon -n '__cordon_is cp' -s f -l force -d 'Downloads replace files of the same name'
complete -c cordon -n '__cordon_is cp' -l keep-both -d 'Downloads of a taken name are saved as NAME (2).EXT'
complete -c cordon -n '__cordon_is cp' -l override-scan -x -d 'Save files the artifact scan would keep back (a reason)'
complete -c cordon -n '__cordon_is cp' -l pseudonymize -x -d 'Upload a CSV file with these columns pseudonymised'
complete -c cordon -n '__cordon_is cp' -l pseudonym-key -x -d 'The pseudonym key to use (default: default)'
complete -c cordon -n '__cordon_is cp' -l csv-header -x -a 'auto yes no' -d 'Whether the first row names the columns'
complete -c cordon -n '__cordon_is cp' -l json -d 'Print what was copied and refused as JSON'
set -l cp_endpoint '__cordon_is cp; and test (count (__cordon_positionals)) -lt 2'
complete -c cordon -n $cp_endpoint -a '(__cordon_cp_candidates)'
complete -c cordon -n "$cp_endpoint; and not string match -q -- '*:*' (commandline -ct)" -F

# files, files rm
complete -c cordon -n '__cordon_is files' -l scope -x -a 'inputs outputs workspace' -d 'The scope'
complete -c cordon -n '__cordon_is files; and not __cordon_is files rm' -l json -d 'Print the result as JSON'
complete -c cordon -n '__cordon_is files; and not __cordon_is files rm' -l scan -d 'Also scan each file as a download would'
complete -c cordon -n '__cordon_is files; and __cordon_first_argument' -a '(__cordon_containers)'
complete -c cordon -n '__cordon_is files; and __cordon_first_argument; and not __cordon_is files rm' \
    -a rm -d 'Delete files from a container'

# history, history purge
set -l hist '__cordon_is history; and not __cordon_is history purge'
complete -c cordon -n $hist -l container -x -a '(__cordon_containers --all)' -d "Only this container's runs"
complete -c cordon -n $hist -l class -x -a 'ok nonzero_exit oom timeout killed setup_failed' \
    -d 'Only runs that ended so'
complete -c cordon -n $hist -l search -x -d 'Only runs whose code, command, id or container name holds this text'
complete -c cordon -n $hist -l audits -d 'Also list the runs of Go/No-Go audits'
complete -c cordon -n $hist -l limit -x -d 'At most N runs'
complete -c cordon -n $hist -l offset -x -d 'Skip the N newest matching runs'
complete -c cordon -n '__cordon_is history' -l json -d "Print the daemon's result as JSON"
complete -c cordon -n "$hist; and __cordon_first_argument" -a purge -d 'Delete old history'
complete -c cordon -n '__cordon_is history purge' -l older-than -x -a '7d 30d 90d 365d' -d 'Age in days'
complete -c cordon -n '__cordon_is history purge' -l yes -d 'With --older-than 0d: delete without asking'

# events
set -l events '__cordon_is events'
complete -c cordon -n $events -l container -x -a '(__cordon_containers --all)' -d "Only this container's events"
set -l kinds container. run. file. network. daemon. container.created container.started container.stopped \
    container.restarted container.restart_failed container.died container.expiring_soon container.expired \
    container.kept_alive container.deleted container.oom_kill run.started run.finished run.cancelled \
    file.uploaded file.downloaded file.deleted network.allowed network.denied network.error \
    network.policy_changed network.proxy_failed network.org_policy_reloaded network.org_policy_invalid \
    secret.set secret.replaced secret.removed daemon.runs_interrupted daemon.time_scale
complete -c cordon -n $events -l kind -x -a "$kinds" -d 'Only this kind; a trailing dot matches a family'
complete -c cordon -n $events -l run -x -d "Only this run's events"
complete -c cordon -n $events -l audits -d 'Also list the events of Go/No-Go audits'
complete -c cordon -n $events -l limit -x -d 'The N most recent events'
complete -c cordon -n $events -s f -l follow -d 'Keep printing new events'
complete -c cordon -n $events -l json -d "Print the daemon's result as JSON"

# network
set -l network '__cordon_is network'
complete -c cordon -n $network -l json -d "Print the daemon's result as JSON"
complete -c cordon -n $network -l reload -d 'With org: read the organisation allowlist again'
complete -c cordon -n "$network; and __cordon_first_argument" -a show -d "The allowlist and the proxy's decisions"
complete -c cordon -n "$network; and __cordon_first_argument" -a allow -d 'Replace the allowlist'
complete -c cordon -n "$network; and __cordon_first_argument" -a org -d 'The organisation allowlist'
set -l network_container "$network; and test (count (__cordon_positionals)) -eq 1
    and contains -- (__cordon_positionals)[1] show allow"
complete -c cordon -n $network_container -a '(__cordon_containers)'

# secret
set -l secret '__cordon_is secret'
complete -c cordon -n $secret -l json -d "Print the daemon's result as JSON"
complete -c cordon -n $secret -l from-file -r -F -d 'With set: read the value from this file'
complete -c cordon -n $secret -l pseudonym-key -d 'With rm: forget the pseudonym key NAME'
complete -c cordon -n "$secret; and __cordon_first_argument" -a set -d 'Set a secret (value from standard input)'
complete -c cordon -n "$secret; and __cordon_first_argument" -a ls -d 'Names, fingerprints and users'
complete -c cordon -n "$secret; and __cordon_first_argument" -a rm -d 'Remove a secret'

# daemon
set -l daemon_action 'test (count (commandline -opc)) -eq 2; and __cordon_is daemon'
complete -c cordon -n $daemon_action -a status -d 'Is it running: pid, uptime, containers'
complete -c cordon -n $daemon_action -a start -d 'Start it in the background'
complete -c cordon -n $daemon_action -a stop -d 'Stop it: containers stop, files stay'
complete -c cordon -n $daemon_action -a time-scale -d 'Make idle time pass N times faster'
complete -c cordon -n '__cordon_is daemon status' -l json -d "Print the daemon's result as JSON"
complete -c cordon -n '__cordon_is daemon time-scale' -l json -d "Print the daemon's result as JSON"
complete -c cordon -n '__cordon_is daemon time-scale; and __cordon_first_argument' -a '1 60 600 3600'
complete -c cordon -n '__cordon_is daemon start' -l time-scale -x -a '1 60 600 3600' \
    -d 'Idle time passes N times faster'
complete -c cordon -n '__cordon_is daemon start; and contains -- -- (commandline -opc)' \
    -a '--max-containers --max-runs --sample-hz --expiring-soon --allow-degraded --network-rows-per-run' -d 'cordond option'

# audit
complete -c cordon -n '__cordon_is audit' -l policy -r -F -d 'The policy file to audit'
complete -c cordon -n '__cordon_is audit' -l container -x -a '(__cordon_containers)' -d 'Audit the policy of this container'
complete -c cordon -n '__cordon_is audit' -l out -x -a '(__fish_complete_directories)' -d 'Write the report here'
complete -c cordon -n '__cordon_is audit' -l row -x -d 'Only the rows whose id starts with this'
complete -c cordon -n '__cordon_is audit' -l json -d 'Print the report as JSON'
complete -c cordon -n '__cordon_is audit' -l name -x -d 'sign: who signs off'
complete -c cordon -n '__cordon_is audit' -l role -x -d 'sign: their role'
complete -c cordon -n '__cordon_is audit' -l decision -x -a 'go no_go' -d 'sign: the decision'
complete -c cordon -n '__cordon_is audit' -l date -x -d 'sign: the day, YYYY-MM-DD'
complete -c cordon -n '__cordon_is audit' -l key -x -d 'verify: accept only this signing key id'
complete -c cordon -n '__cordon_is audit' -l keyring -r -F -d "verify: the reviewers' keyring"
complete -c cordon -n '__cordon_is audit' -a sign -d 'Sign a report (a file in place, or an id)'
complete -c cordon -n '__cordon_is audit' -a verify -d "Check a report's evidence hashes and who of the keyring signed it"
complete -c cordon -n '__cordon_is audit' -a ls -d 'The audits in the history'
complete -c cordon -n '__cordon_is audit' -a show -d 'One audit, as Markdown or exported' 

# demo, doctor, cgroup-delegate
complete -c cordon -n '__cordon_is demo' -l allow-degraded -d 'Run without cgroup limits'
complete -c cordon -n '__cordon_is cgroup-delegate' -l user -x -a '(__fish_complete_users)' -d 'The user'
complete -c cordon -n '__cordon_is cgroup-delegate' -l favor-dynmods -d 'Remount cgroup2 with favordynmods'
