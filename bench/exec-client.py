#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Protocol round trip of one exec against a running cordond, without the CLI.

Keeps one connection to the daemon (docs/protocol.md: 4-byte big-endian length, then JSON), sends `hello`
once, then times `run.exec` + `run.wait` of a command (default /bin/true) in a given container, many times
over. This is what an SDK or the workbench pays per exec once it is connected: no process start, no Qt, no
connect, no subscription.

    bench/exec-client.py CONTAINER [--runs N] [--warmup N] [--socket PATH] [--json FILE] [-- CMD ARGS...]

The socket is --socket, else $CORDON_SOCKET, else $XDG_RUNTIME_DIR/cordon/cordond.sock. Prints the median
(and the median of each half: the run.exec answer, then the run.wait answer) and exits 1 if any run did not
finish with error_class "ok". --json writes {"times": [...], "exec_times": [...], "wait_times": [...]} in
seconds, like hyperfine's export, for the caller to combine with other measurements.
"""
import argparse
import json
import os
import socket
import statistics
import struct
import sys
import time


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = bytearray()
        self.next_id = 1

    def _read_frame(self):
        while True:
            if len(self.buffer) >= 4:
                (length,) = struct.unpack_from(">I", self.buffer, 0)
                if len(self.buffer) >= 4 + length:
                    frame = bytes(self.buffer[4:4 + length])
                    del self.buffer[:4 + length]
                    return json.loads(frame)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("cordond closed the connection")
            self.buffer += chunk

    def call(self, method, params=None):
        request_id = self.next_id
        self.next_id += 1
        body = json.dumps({"id": request_id, "method": method, "params": params or {}},
                          separators=(",", ":")).encode()
        self.sock.sendall(struct.pack(">I", len(body)) + body)
        while True:
            message = self._read_frame()
            if message.get("id") != request_id:
                continue  # a pushed event or another answer: this client subscribes to nothing
            if "error" in message:
                error = message["error"]
                raise RuntimeError(f"{method}: {error.get('code')}: {error.get('message')}")
            return message["result"]


def default_socket():
    if os.environ.get("CORDON_SOCKET"):
        return os.environ["CORDON_SOCKET"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if not runtime:
        sys.exit("exec-client: set CORDON_SOCKET or XDG_RUNTIME_DIR, or pass --socket")
    return os.path.join(runtime, "cordon", "cordond.sock")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("container")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--socket", default=None)
    parser.add_argument("--json", dest="json_out", default=None, help="write the times (seconds) here")
    parser.add_argument("command", nargs="*", default=["/bin/true"])
    args = parser.parse_args()
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be at least 1 and --warmup at least 0")

    client = Client(args.socket or default_socket())
    client.call("hello", {"protocol": 1, "client": "bench/exec-client.py"})
    clock = time.perf_counter
    times, exec_times, wait_times, failed = [], [], [], []
    for i in range(args.warmup + args.runs):
        start = clock()
        run = client.call("run.exec", {"container": args.container, "command": args.command})["run"]
        started = clock()
        done = client.call("run.wait", {"run_id": run["id"]})["run"]
        end = clock()
        if done.get("error_class") != "ok":
            failed.append(done)
        if i >= args.warmup:
            times.append(end - start)
            exec_times.append(started - start)
            wait_times.append(end - started)
    if failed:
        print(f"exec-client: {len(failed)} run(s) did not end ok, e.g. {json.dumps(failed[0])[:400]}",
              file=sys.stderr)

    if args.json_out:
        with open(args.json_out, "w") as out:
            json.dump({"command": "protocol run.exec + run.wait", "times": times, "exec_times": exec_times,
                       "wait_times": wait_times}, out)
    ms = lambda s: "%.3f ms" % (s * 1000)
    print(f"{len(times)} runs of {' '.join(args.command)}: median {ms(statistics.median(times))} "
          f"(run.exec answered after {ms(statistics.median(exec_times))}, "
          f"run.wait after a further {ms(statistics.median(wait_times))}), "
          f"min {ms(min(times))}, max {ms(max(times))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
