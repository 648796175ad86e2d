# Demo: a network probe.
# Tries the ways out that generated code might use: a name lookup, a direct connection to a public address,
# and a request through the proxy if the container has one. A container with its network off has nothing but
# loopback, so every attempt fails; with an allowlist, only hosts on the list get through the proxy, and a
# refused one gets the proxy's 403 with the reason. The Network tab lists every decision.
import os
import socket
import urllib.request


def attempt(what, action):
    try:
        print(f"{what}: {action()}", flush=True)
    except Exception as error:  # every failure is the point of this demo
        print(f"{what}: blocked ({error})", flush=True)


attempt("resolve example.org", lambda: socket.gethostbyname("example.org"))
attempt("connect to 1.1.1.1:443",
        lambda: socket.create_connection(("1.1.1.1", 443), timeout=3) and "connected")
proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
if proxy:
    print(f"this container has an allowlist; its proxy is {proxy}", flush=True)
    for url in ("https://pypi.org/simple/", "https://example.com/"):
        attempt(f"GET {url}", lambda: f"HTTP {urllib.request.urlopen(url, timeout=10).status}")
else:
    print("this container's network is off: no proxy, no route, no resolver", flush=True)
