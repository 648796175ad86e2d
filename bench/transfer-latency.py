#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How the daemon answers other clients while a large file transfer runs (issue 14's load target).

Starts its own cordond (private socket and data directory), creates two containers, and in the same
invocation measures `daemon.status` round trips from a second client with the daemon idle and while a
1 GiB upload (`file.upload` with a host path) copies into the first container; meanwhile the second
container prints a line every 10 ms and the largest gap between its `run.output` events is recorded. Then
the first container writes as much into its workspace (a tmpfs) and is stopped, which saves it to disk: the
time the stop takes to answer, and `daemon.status` while the save runs.

    bench/transfer-latency.py [BIN_DIR] [--size-mib N] [--json FILE]

Prints p50, p99 and max of each phase, the p99 ratio upload/idle, and the largest output gap, against the
target (p99 under 50 ms during the upload, output keeps streaming). Removes everything on exit.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("exec_client", os.path.join(HERE, "exec-client.py"))
exec_client = importlib.util.module_from_spec(spec)
spec.loader.exec_module(exec_client)
Client = exec_client.Client


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def describe(name, values):
    ms = [v * 1000 for v in values]
    return f"{name:<22} n={len(ms):<5} p50 {percentile(ms, 0.5):7.2f} ms  p99 {percentile(ms, 0.99):7.2f} ms  max {max(ms):7.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dir", nargs="?", default=os.path.join(HERE, "..", "build", "bin"))
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    bin_dir = os.path.abspath(args.bin_dir)

    work = tempfile.mkdtemp(prefix="cordon-transfer-")
    os.chmod(work, 0o700)
    env = dict(os.environ, CORDON_SOCKET=os.path.join(work, "run", "cordond.sock"),
               CORDON_DATA_DIR=os.path.join(work, "data"))
    os.makedirs(os.path.join(work, "run"), mode=0o700)
    daemon = subprocess.Popen([os.path.join(bin_dir, "cordond")], env=env, stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(work, "cordond.log"), "w"))
    try:
        deadline = time.time() + 10
        while not os.path.exists(env["CORDON_SOCKET"]):
            if time.time() > deadline or daemon.poll() is not None:
                sys.exit("transfer-latency: cordond did not start; see " + os.path.join(work, "cordond.log"))
            time.sleep(0.05)
        time.sleep(0.2)
        control = Client(env["CORDON_SOCKET"])
        control.call("hello", {"protocol": 1, "client": "transfer-latency"})
        # The workspace lives in memory: room for the saved file and the processes beside it.
        policy = {"limits": {"workspace_mb": args.size_mib + 64},
                  "memory_limit": (args.size_mib + 1024) * 1024 * 1024}
        target = control.call("container.create", {"policy": dict(policy, name="transfer-target")})["container"]["id"]
        printer = control.call("container.create", {"policy": {"name": "transfer-printer"}})["container"]["id"]

        big = os.path.join(work, "big.bin")
        with open(big, "wb") as f:
            f.truncate(args.size_mib * 1024 * 1024)

        prober = Client(env["CORDON_SOCKET"])
        prober.call("hello", {"protocol": 1, "client": "transfer-latency probe"})
        idle = []
        for _ in range(300):
            start = time.perf_counter()
            prober.call("daemon.status")
            idle.append(time.perf_counter() - start)

        # The printer's output, seen by a subscriber, while the upload runs.
        watcher = Client(env["CORDON_SOCKET"])
        watcher.call("hello", {"protocol": 1, "client": "transfer-latency watcher"})
        watcher.call("subscribe", {"topics": ["runs"], "container": printer})
        watcher.call("run.exec", {"container": printer, "command": ["sh", "-c",
                     "i=0; while [ $i -lt 3000 ]; do echo $i; i=$((i+1)); sleep 0.01; done"]})
        gaps = []
        stop = threading.Event()

        def watch():
            last = None
            while not stop.is_set():
                message = watcher._read_frame()
                if message.get("event") == "run.output":
                    now = time.perf_counter()
                    if last is not None:
                        gaps.append(now - last)
                    last = now

        watching = threading.Thread(target=watch, daemon=True)
        watching.start()
        time.sleep(0.5)

        done = threading.Event()
        upload_time = []

        def upload():
            uploader = Client(env["CORDON_SOCKET"])
            uploader.call("hello", {"protocol": 1, "client": "transfer-latency upload"})
            start = time.perf_counter()
            uploader.call("file.upload", {"container": target, "name": "big.bin", "path": big})
            upload_time.append(time.perf_counter() - start)
            done.set()

        gaps.clear()
        uploading = threading.Thread(target=upload)
        uploading.start()
        loaded = []
        while not done.is_set():
            start = time.perf_counter()
            prober.call("daemon.status")
            loaded.append(time.perf_counter() - start)
            time.sleep(0.005)
        uploading.join()
        during_gaps = list(gaps)
        stop.set()

        print(f"upload of {args.size_mib} MiB took {upload_time[0]:.2f} s")
        print(describe("daemon.status idle", idle))
        print(describe("daemon.status upload", loaded))
        ratio = percentile(loaded, 0.99) / percentile(idle, 0.99)
        print(f"p99 ratio upload/idle: {ratio:.2f}x; target: p99 under 50 ms during the upload: "
              f"{'met' if percentile(loaded, 0.99) < 0.050 else 'NOT met'}")
        if during_gaps:
            print(f"printer output events during the upload: {len(during_gaps) + 1}, largest gap "
                  f"{max(during_gaps) * 1000:.1f} ms (it prints every 10 ms)")
        else:
            print("printer output: no events during the upload (NOT streaming)")

        # The same size written into the target's workspace tmpfs, then a stop, which saves it to disk on a
        # thread of its own: the stop answers at once and the daemon keeps answering while the copy runs.
        control.call("run.exec", {"container": target, "command": ["sh", "-c",
                     f"dd if=/dev/zero of=/mnt/data/written bs=1M count={args.size_mib} 2>/dev/null"]})
        deadline = time.time() + 120
        while control.call("container.get", {"id": target})["container"].get("active_runs", 0) > 0:
            if time.time() > deadline:
                sys.exit("transfer-latency: the write into the workspace did not finish")
            time.sleep(0.1)
        stop_time = []
        stopped = threading.Event()

        def stop_target():
            stopper = Client(env["CORDON_SOCKET"])
            stopper.call("hello", {"protocol": 1, "client": "transfer-latency stop"})
            start = time.perf_counter()
            stopper.call("container.stop", {"id": target})
            stop_time.append(time.perf_counter() - start)
            stopped.set()

        def saved():
            events = control.call("history.events", {"container": target, "kind": "workspace.saved"})
            return events["events"]

        stopping = threading.Thread(target=stop_target)
        stopping.start()
        saving = []
        while not stopped.is_set() or not saved():
            start = time.perf_counter()
            prober.call("daemon.status")
            saving.append(time.perf_counter() - start)
            time.sleep(0.005)
        stopping.join()
        save_ms = saved()[0]["detail"]["milliseconds"]
        print(f"stop of a container holding {args.size_mib} MiB answered in {stop_time[0] * 1000:.1f} ms; "
              f"its save took {save_ms} ms")
        print(describe("daemon.status save", saving))
        print(f"target: p99 under 50 ms during the save: "
              f"{'met' if percentile(saving, 0.99) < 0.050 else 'NOT met'}")
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump({"idle": idle, "upload": loaded, "gaps": during_gaps, "upload_s": upload_time[0],
                           "save": saving, "stop_s": stop_time[0], "save_ms": save_ms}, f)
        for container in (target, printer):
            control.call("container.delete", {"id": container})
    finally:
        daemon.terminate()
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
