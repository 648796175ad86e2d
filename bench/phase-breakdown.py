#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where the time of one `cordon run -- /bin/true` goes, phase by phase, as a median over many runs.

    bench/phase-breakdown.py [BIN_DIR] [--runs N] [--tracer auto|perf|strace] [--data-base DIR] [--keep DIR]

Each run is traced, limited to a few marker system calls, with `perf trace -T` (kernel tracepoints: a few
microseconds per traced call) or, where perf does not work, `strace -f --seccomp-bpf -ttt -T` (only the
marker calls stop the tracer, but each stop and each fork costs tens of microseconds). Phase boundaries are
marker calls: the first W_OK access() (cgroup detection), the namespace clone, the id map and cgroup writes,
the workspace thread's mkdirs and lchowns, the setup, CgroupJoined and spawn messages on the control socket, pivot_root,
the run's
execve and exit_group, the kill of cordon-init, the cgroup rmdirs and the summary written to stderr. Markers
are found by order and file descriptor, not by path, so a change in the engine's order of steps needs a
change here. The traced total is above the untraced latency
that bench/run-benchmarks.sh measures; the split is what this is for.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TRACED = ("execve,clone,access,mkdir,lchown,sendmsg,recvmsg,exit_group,kill,wait4,rmdir,"
          "write,pivot_root")


class Call:
    def __init__(self, pid, name, entry, exit_, text):
        self.pid, self.name, self.entry, self.exit, self.text = pid, name, entry, exit_, text

    def fd(self):
        """First argument as a number: `write(5, ...` (strace) or `write(fd: 5<...>, ...` (perf)."""
        match = re.match(r"\w+\((?:fd: )?(-?\d+)", self.text)
        return int(match.group(1)) if match else None

    def result(self):
        match = re.search(r"= (-?\d+)", self.text.split(")", 1)[-1]) or re.search(r"= (-?\d+)", self.text)
        return int(match.group(1)) if match else None


STRACE_LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")
STRACE_DURATION = re.compile(r"<(\d+\.\d+)>\s*$")
PERF_LINE = re.compile(r"^\s*([\d.]+|\?) \(\s*([\d.]*)(?: ms)?\s*\): (.+?)/(\d+) (.*)$")


def parse_strace(path):
    """Calls in order of entry; unfinished/resumed pairs are joined. Times in seconds."""
    calls, pending = [], {}
    for raw in open(path, errors="replace"):
        match = STRACE_LINE.match(raw.rstrip("\n"))
        if not match:
            continue
        pid, ts, rest = int(match.group(1)), float(match.group(2)), match.group(3)
        if rest.startswith("+++") or rest.startswith("---"):
            continue
        if rest.startswith("<..."):
            if pid in pending:
                call = pending.pop(pid)
                call.exit = ts
                call.text += rest
            continue
        name = rest.split("(", 1)[0]
        if rest.endswith("<unfinished ...>"):
            call = Call(pid, name, ts, None, rest)
            pending[pid] = call
            calls.append(call)
            continue
        dur = STRACE_DURATION.search(rest)
        calls.append(Call(pid, name, ts, ts + (float(dur.group(1)) if dur else 0.0), rest))
    for call in calls:
        if call.exit is None:
            call.exit = call.entry
    return calls


def parse_perf(path):
    """`perf trace -T` output: milliseconds; an unfinished call is completed by a `[continued]` line."""
    calls, pending = [], {}
    for raw in open(path, errors="replace"):
        match = PERF_LINE.match(raw.rstrip("\n"))
        if not match or match.group(1) == "?":
            continue
        ts, dur, pid, rest = float(match.group(1)) / 1000, match.group(2), int(match.group(4)), match.group(5)
        dur = float(dur) / 1000 if dur else None
        if rest.lstrip().startswith("... [continued]:"):
            if pid in pending:
                call = pending.pop(pid)
                call.exit = call.entry + (dur or 0.0)
                call.text += rest
            continue
        name = rest.split("(", 1)[0]
        call = Call(pid, name, ts, ts + dur if dur is not None else None, rest)
        calls.append(call)
        if dur is None and name != "exit_group":
            pending[pid] = call
    for call in calls:
        if call.exit is None:
            call.exit = call.entry
    calls.sort(key=lambda c: c.entry)
    return calls


def first(calls, pred, after=None):
    for call in calls:
        if pred(call) and (after is None or call.entry >= after):
            return call
    raise LookupError


def last(calls, pred):
    found = [c for c in calls if pred(c)]
    if not found:
        raise LookupError
    return found[-1]


def phases(calls, front):
    """(name, seconds) for the sequential phases, plus the overlapping ones. `front` is cordon's pid."""
    mine = [c for c in calls if c.pid == front]
    init_exec = first(calls, lambda c: c.name == "execve" and c.pid != front)
    init = init_exec.pid
    run_exec = first(calls, lambda c: c.name == "execve" and c.pid not in (front, init))
    run = run_exec.pid

    start = mine[0].entry  # the dynamic loader's first call (perf misses the execve itself)
    detect = first(mine, lambda c: c.name == "access" and ("W_OK" in c.text or "mode: W" in c.text))
    clone = first(mine, lambda c: c.name == "clone" and "NEWUSER" in c.text)
    # After the clone, while cordon-init execs: setgroups, uid_map and gid_map are written, the workspace is
    # made (mkdirs and, when its owner inside differs from the caller, lchowns) and the mount plan is built (no
    # marker), then the setup request is sent. While cordon-init applies the plan, the cgroup is made, limited
    # and joined (mkdir, writes) and CgroupJoined sent. perf prints paths as pointers, so the markers are
    # these, not the paths. (The seccomp program is compiled at build time: nothing of it shows here.)
    setup_sent = first(mine, lambda c: c.name == "sendmsg")
    joined_sent = first(mine, lambda c: c.name == "sendmsg", after=setup_sent.exit)
    maps = [c for c in mine if c.name == "write" and clone.exit <= c.entry < setup_sent.entry][:3]
    # The workspace and then the mount plan are made on a thread of the front-end's own (another tid), from
    # before the clone.
    ws_calls = [c for c in calls if c.pid not in (front, init, run) and c.name in ("mkdir", "lchown")
                and c.entry < setup_sent.entry]
    setup_recv = first(calls, lambda c: c.pid == init and c.name == "recvmsg")
    joined_recv = first(calls, lambda c: c.pid == init and c.name == "recvmsg", after=setup_recv.exit)
    pivot = first(calls, lambda c: c.pid == init and c.name == "pivot_root")
    reply = first(calls, lambda c: c.pid == init and c.name == "sendmsg")
    # The spawn request is queued right behind CgroupJoined, before the setup reply comes.
    spawn_sent = first(mine, lambda c: c.name == "sendmsg", after=joined_sent.exit)
    run_exit = first(calls, lambda c: c.pid == run and c.name == "exit_group")
    kill = first(mine, lambda c: c.name == "kill")
    reaped = first(mine, lambda c: c.name == "wait4", after=kill.entry)
    cg_gone = last(mine, lambda c: c.name == "rmdir")
    summary = first(mine, lambda c: c.name == "write" and c.fd() == 2, after=cg_gone.entry)
    end = last(mine, lambda c: c.name == "exit_group")

    sequential = [
        ("process start (the static launcher: no dynamic linking, no Qt), option parsing, cgroup detection reads",
         detect.entry - start),
        ("cgroup detection checks, container id, cordon-init located", clone.entry - detect.entry),
        ("clone() with user/mount/pid/net/ipc/uts namespaces", clone.exit - clone.entry),
        ("uid/gid maps written", maps[-1].exit - clone.exit),
        ("waiting for the workspace thread, seccomp program copied", setup_sent.entry - maps[-1].exit),
        ("setup request delivered to cordon-init", setup_recv.exit - setup_sent.entry),
        ("cordon-init: bind sources opened, mount plan applied, pivot_root, CgroupJoined read, seccomp filter "
         "installed", reply.entry - setup_recv.exit),
        ("setup reply sent; cordon-init reads the queued spawn request, forks the run: rlimits, execve",
         run_exec.entry - reply.entry),
        ("/bin/true itself", run_exit.entry - run_exec.entry),
        ("exit report, cgroup memory stats read, output pipes drained", kill.entry - run_exit.entry),
        ("SIGKILL to cordon-init; workspace removed (removeTree) while the kernel tears the container down",
         reaped.entry - kill.entry),
        ("cordon-init reaped (what is left of the teardown)", reaped.exit - reaped.entry),
        ("cgroup destroy (procs read, 2 rmdir)", cg_gone.exit - reaped.exit),
        ("workspace checked again (cleanUp), summary formatted", summary.entry - cg_gone.exit),
        ("summary printed, exit", end.entry - summary.entry),
    ]
    overlapping = [
        ("workspace made on its own thread (mkpath, 5 mkdir, 2 chown, in CORDON_DATA_DIR; from before the "
         "clone; the mount plan follows there, without marker calls)", ws_calls[-1].exit - ws_calls[0].entry),
        ("cordon-init exec until it waits for the setup request (beside the maps, workspace and plan phases)",
         setup_recv.entry - init_exec.entry),
        ("cgroup create + limits (mkdir, 5 writes), cordon-init moved in, CgroupJoined sent (beside the mount "
         "plan phase)", joined_sent.exit - setup_sent.exit),
        ("cordon-init waiting for CgroupJoined after its mount plan (0 when the cgroup was quicker)",
         joined_recv.exit - joined_recv.entry),
        ("pivot_root (inside the mount plan phase)", pivot.exit - pivot.entry),
        ("the front-end builds and queues the spawn request (beside the mount plan phase)",
         spawn_sent.exit - joined_sent.exit),
    ]
    return sequential, overlapping, end.entry - start


def trace_command(tracer, log, argv):
    if tracer == "perf":
        return ["perf", "trace", "-T", "-o", log, "-e", TRACED, "--"] + argv
    return ["strace", "-f", "--seccomp-bpf", "-ttt", "-T", "-qq", "-s", "64", "-e", f"trace={TRACED}",
            "-o", log] + argv


def front_pid(tracer, log):
    """The traced command's pid: the first pid in the log."""
    for raw in open(log, errors="replace"):
        match = (PERF_LINE if tracer == "perf" else STRACE_LINE).match(raw)
        if match:
            return int(match.group(4) if tracer == "perf" else match.group(1))
    raise LookupError


def perf_works():
    if not shutil.which("perf"):
        return False
    probe = subprocess.run(["perf", "trace", "-e", "exit_group", "--", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return probe.returncode == 0


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dir", nargs="?", default="build/bin")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--data-base", default=os.environ.get("TMPDIR", "/tmp"),
                        help="where the private CORDON_DATA_DIR is created")
    parser.add_argument("--keep", help="keep the trace logs in this directory")
    parser.add_argument("--tracer", choices=("auto", "perf", "strace"), default="auto",
                        help="perf trace (tracepoints, a few microseconds per marker call) or strace (ptrace, "
                             "more); auto takes perf when `perf trace` works here")
    args = parser.parse_args()
    bin_dir = args.bin_dir
    if not os.path.isabs(bin_dir) and not os.path.isdir(bin_dir):
        bin_dir = os.path.join(repo, bin_dir)
    cordon = os.path.join(os.path.abspath(bin_dir), "cordon")
    if not os.access(cordon, os.X_OK):
        sys.exit(f"phase-breakdown: {cordon} is missing; build it or pass BIN_DIR")
    tracer = args.tracer
    if tracer == "auto":
        tracer = "perf" if perf_works() else "strace"
    if tracer == "strace" and not shutil.which("strace"):
        sys.exit("phase-breakdown: neither a working `perf trace` nor strace: sudo apt-get install strace")

    work = tempfile.mkdtemp(prefix="cordon-phases.", dir=args.data_base)
    logs = args.keep or work
    os.makedirs(logs, exist_ok=True)
    env = dict(os.environ, CORDON_DATA_DIR=os.path.join(work, "data"))
    samples, parallel, totals = {}, {}, []
    try:
        for i in range(args.runs + 2):  # the first two warm the page cache and are dropped
            log = os.path.join(logs, f"{tracer}-{i}.txt")
            done = subprocess.run(trace_command(tracer, log, [cordon, "run", "--", "/bin/true"]),
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                sys.exit(f"phase-breakdown: cordon run failed under {tracer}:\n{done.stderr}")
            if i < 2:
                continue
            try:
                calls = parse_perf(log) if tracer == "perf" else parse_strace(log)
                sequential, overlapping, total = phases(calls, front_pid(tracer, log))
            except (LookupError, IndexError):
                sys.exit(f"phase-breakdown: could not find the phase markers in {log}")
            for name, seconds in sequential:
                samples.setdefault(name, []).append(seconds * 1000)
            for name, seconds in overlapping:
                parallel.setdefault(name, []).append(seconds * 1000)
            totals.append(total * 1000)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)

    def quartiles(values):
        q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        return q[0], q[2]

    total = statistics.median(totals)
    print(f"#### Phases of `cordon run -- /bin/true` under {tracer} (median of {len(totals)} runs)\n")
    print("| phase | median | p25–p75 | share of the median total |")
    print("| --- | ---: | ---: | ---: |")
    for name, values in samples.items():
        med = statistics.median(values)
        lo, hi = quartiles(values)
        print(f"| {name} | {med:.2f} ms | {lo:.2f}–{hi:.2f} | {100 * med / total:.0f}% |")
    lo, hi = quartiles(totals)
    print(f"| **total, first system call to exit_group (traced)** | **{total:.2f} ms** | {lo:.2f}–{hi:.2f} | |")
    print("\nInside or beside those phases:\n")
    for name, values in parallel.items():
        lo, hi = quartiles(values)
        print(f"- {name}: median {statistics.median(values):.2f} ms (p25–p75 {lo:.2f}–{hi:.2f})")
    print(f"\nload average now: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
