#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A loopback HTTPS server for bench/proxy-benchmarks.sh: streams zeros from memory, so that the
server is not what limits a download.

  https-zero-server.py --cert CERT --key KEY [--host 127.0.0.1] [--port 0] [--port-file FILE]

Paths (GET or HEAD; anything else is 404):
  /1g          1 GiB (1073741824 bytes) of zeros with Content-Length
  /bytes/N     N bytes of zeros
  /small       the two bytes "ok", head and body in one write (one TLS record)

One thread per connection, HTTP/1.1 with keep-alive. The body is written with sendall() from one 4 MiB
buffer of zeros, so each TLS write hands OpenSSL 4 MiB (it cuts 16 KiB records from it). The chosen port
is printed on stdout (and written to --port-file) once the socket listens.
"""
import argparse
import os
import socket
import ssl
import sys
import threading

CHUNK = memoryview(bytes(4 * 1024 * 1024))
MAX_HEAD = 64 * 1024


def body_length(path):
    if path == "/1g":
        return 1 << 30
    if path == "/small":
        return None
    if path.startswith("/bytes/") and path[7:].isdigit():
        return int(path[7:])
    return -1


def handle(conn):
    try:
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(16384)
                if not data:
                    return
                buf += data
                if len(buf) > MAX_HEAD:
                    return
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) != 3:
                return
            method, target, version = parts
            fields = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip().lower()
            close = fields.get("connection") == "close" or version != "HTTP/1.1"
            n = body_length(target) if method in ("GET", "HEAD") else -1
            if n == -1:
                msg = b"not found\n"
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                             b"Connection: close\r\n\r\n%s" % (len(msg), msg))
                return
            small = n is None
            length = 2 if small else n
            head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                    b"Content-Length: %d\r\n%s\r\n" % (length, b"Connection: close\r\n" if close else b""))
            if small:
                # Head and body in one write, one TLS record, as most servers answer small requests.
                conn.sendall(head + b"ok" if method == "GET" else head)
            else:
                conn.sendall(head)
                if method == "GET":
                    left = n
                    while left > 0:
                        piece = CHUNK if left >= len(CHUNK) else CHUNK[:left]
                        conn.sendall(piece)
                        left -= len(piece)
            if close:
                return
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    args = ap.parse_args()

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    ctx.set_alpn_protocols(["http/1.1"])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    listener.listen(256)
    port = listener.getsockname()[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print(port, flush=True)

    def serve(raw):
        try:
            raw.settimeout(60)
            conn = ctx.wrap_socket(raw, server_side=True)
            conn.settimeout(None)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        handle(conn)

    while True:
        raw, _ = listener.accept()
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(raw,), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
