#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A minimal TCP relay, the reference for what any user-space proxy costs on a machine: no CONNECT, no
checks, two threads per connection that move bytes one way each. Used by hand for the experiment in
docs/benchmarks.md ("Proxy throughput and set-up latency"); not a product.

  tcp-relay.py LISTEN_PORT UPSTREAM_PORT [--mode copy|splice] [--buffer BYTES]

copy:   recv_into() a buffer of --buffer bytes (default 262144), then sendall() it.
splice: socket -> pipe -> socket with os.splice(), nothing copied to user space (pipe of 1 MiB).
Both sockets get TCP_NODELAY. Point curl at it with --connect-to, so that TLS and SNI stay end to end:

  curl --cacert CA --connect-to localhost:PORT:127.0.0.1:LISTEN_PORT https://localhost:PORT/1g
"""
import argparse
import fcntl
import os
import socket
import threading

F_SETPIPE_SZ = 1031


def pump(src, dst, mode, size):
    try:
        if mode == "splice":
            r, w = os.pipe()
            fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
            while True:
                n = os.splice(src.fileno(), w, 1 << 20)
                if n == 0:
                    break
                while n:
                    n -= os.splice(r, dst.fileno(), n)
        else:
            buf = bytearray(size)
            view = memoryview(buf)
            while True:
                n = src.recv_into(buf)
                if n == 0:
                    break
                dst.sendall(view[:n])
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("listen_port", type=int)
    ap.add_argument("upstream_port", type=int)
    ap.add_argument("--mode", choices=["copy", "splice"], default="copy")
    ap.add_argument("--buffer", type=int, default=256 * 1024)
    args = ap.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.listen_port))
    listener.listen(64)
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection(("127.0.0.1", args.upstream_port))
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(a, b, args.mode, args.buffer), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
