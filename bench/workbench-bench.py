#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Helpers of bench/workbench-benchmarks.sh: fill the history, time launches, measure CPU.

    workbench-bench.py fill CONTAINER... --runs N
        N real runs through the daemon (run.exec + run.wait on one connection, bench/exec-client.py's
        client), spread over the containers: `/bin/sh -c 'echo run I'`, every tenth exiting 3, so the
        history has two outcome classes and output to show.
    workbench-bench.py launch --case LABEL ENV PROGRAM [--case ...] --rounds R --runs N [--warmup W] [--json F]
        Starts each case's PROGRAM (with ENV: "-" or comma-separated NAME=VALUE added to the environment) N
        times per round, one launch after another, the order of the cases rotating between rounds, and times
        each from just before the fork to the line it prints when interactive (`... interactive
        monotonic_ns=T ...`, CLOCK_MONOTONIC, the clock of time.monotonic_ns()). The workbench prints its
        phases on the same line; their medians are reported. W warm-up launches per case come first.
    workbench-bench.py cpu --pid PID [--seconds S] [--also NAME=PID ...]
        utime + stime of PID (all its threads, /proc/PID/stat) over S seconds, as % of one core; the same for
        the other processes given, for context.
"""
import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def exec_client():
    spec = importlib.util.spec_from_file_location("exec_client", os.path.join(HERE, "exec-client.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def socket_path():
    path = os.environ.get("CORDON_SOCKET")
    if path:
        return path
    return os.path.join(os.environ["XDG_RUNTIME_DIR"], "cordon", "cordond.sock")


def fill(args):
    client = exec_client().Client(socket_path())
    client.call("hello", {"protocol": 1, "client": "workbench-bench"})
    start = time.monotonic()
    classes = {}
    for i in range(args.runs):
        container = args.containers[i % len(args.containers)]
        status = 3 if i % 10 == 9 else 0
        run = client.call("run.exec", {"container": container,
                                       "command": ["/bin/sh", "-c", f"echo run {i}; exit {status}"]})["run"]
        ended = client.call("run.wait", {"run_id": run["id"]})["run"]
        classes[ended.get("error_class")] = classes.get(ended.get("error_class"), 0) + 1
    print(f"filled {args.runs} runs in {time.monotonic() - start:.1f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(classes.items())), file=sys.stderr)
    if set(classes) - {"ok", "nonzero_exit"}:
        sys.exit(1)


LINE = re.compile(rb"interactive monotonic_ns=(\d+)(.*)")
PHASE = re.compile(rb"(\w+)_ns=(\d+)")


def launch_once(command, env, timeout):
    before = time.monotonic_ns()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + timeout
    result = None
    try:
        for raw in process.stdout:
            match = LINE.search(raw)
            if match:
                at = int(match.group(1))
                phases = {name.decode(): (int(value) - before) / 1e6
                          for name, value in PHASE.findall(match.group(2)) if int(value) > 0}
                result = ((at - before) / 1e6, phases)
                break
            if time.monotonic() > deadline:
                break
        process.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if result is None:
        raise RuntimeError(f"{command[0]} printed no 'interactive' line (exit status {process.returncode})")
    return result


def launch(args):
    cases = []
    for label, extra, program in args.case:
        env = dict(os.environ)
        if extra != "-":
            env.update(item.split("=", 1) for item in extra.split(","))
        cases.append({"label": label, "command": [program], "env": env, "times": [], "phases": {}})
    for case in cases:
        for _ in range(args.warmup):
            launch_once(case["command"], case["env"], args.timeout)
    for round_index in range(args.rounds):
        shift = round_index % len(cases)
        for case in cases[shift:] + cases[:shift]:
            for _ in range(args.runs):
                total, steps = launch_once(case["command"], case["env"], args.timeout)
                case["times"].append(total)
                for name, value in steps.items():
                    case["phases"].setdefault(name, []).append(value)
    summary = []
    for case in cases:
        times = case["times"]
        summary.append({"label": case["label"], "runs": len(times), "median_ms": statistics.median(times),
                        "min_ms": min(times), "max_ms": max(times), "times_ms": times,
                        "phase_medians_ms": {k: statistics.median(v) for k, v in case["phases"].items()}})
        print(f"{case['label']}: median {statistics.median(times):.1f} ms (min {min(times):.1f}, "
              f"max {max(times):.1f}, {len(times)} launches)", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def cpu(args):
    hz = os.sysconf("SC_CLK_TCK")
    watched = {"workbench": args.pid}
    for item in args.also:
        name, _, pid = item.partition("=")
        watched[name] = int(pid)
    before = {name: cpu_ticks(pid) for name, pid in watched.items()}
    start = time.monotonic()
    time.sleep(args.seconds)
    elapsed = time.monotonic() - start
    result = {"seconds": elapsed, "clk_tck": hz}
    for name, pid in watched.items():
        used = (cpu_ticks(pid) - before[name]) / hz
        result[name] = {"cpu_s": used, "percent_of_one_core": 100.0 * used / elapsed}
    print(json.dumps(result))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="what", required=True)
    p = commands.add_parser("fill")
    p.add_argument("containers", nargs="+")
    p.add_argument("--runs", type=int, default=1000)
    p = commands.add_parser("launch")
    p.add_argument("--case", nargs=3, action="append", required=True, metavar=("LABEL", "ENV", "PROGRAM"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--json")
    p = commands.add_parser("cpu")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--also", action="append", default=[])
    args = parser.parse_args()
    {"fill": fill, "launch": launch, "cpu": cpu}[args.what](args)


if __name__ == "__main__":
    main()
