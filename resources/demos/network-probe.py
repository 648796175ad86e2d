# Demo: a network probe.
# Tries the ways out that generated code might use: a name lookup, a direct connection to a public address,
# and requests through the proxy if the container has one. A container with its network off has nothing but
# loopback, so every attempt fails. With an allowlist, the proxy tells two failures apart: a host that is not
# on the list is "denied by policy" (the proxy answers 403 itself), while a host that is allowed but cannot be
# reached is "allowed, but the upstream failed". The Network tab lists every decision.
import os
import socket
import urllib.error
import urllib.request


def attempt(what, action):
    try:
        print(f"{what}: {action()}", flush=True)
    except Exception as error:  # every failure is the point of this demo
        print(f"{what}: blocked ({error})", flush=True)


def through_proxy(url):
    try:
        return f"allowed, HTTP {urllib.request.urlopen(url, timeout=10).status}"
    except urllib.error.HTTPError as error:
        if error.code == 403:
            return "denied by policy (the proxy's 403: not on the allowlist)"
        return f"allowed, but the upstream failed (HTTP {error.code})"
    except urllib.error.URLError as error:
        reason = str(error.reason)
        if "403" in reason:
            return "denied by policy (the proxy refused the tunnel: not on the allowlist)"
        return f"allowed, but the upstream failed ({reason})"


attempt("resolve example.org", lambda: socket.gethostbyname("example.org"))
attempt("connect to 1.1.1.1:443",
        lambda: socket.create_connection(("1.1.1.1", 443), timeout=3) and "connected")
proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
if proxy:
    print(f"this container has an allowlist; its proxy is {proxy}", flush=True)
    for url in ("https://pypi.org/simple/", "http://example.com/"):
        print(f"GET {url}: {through_proxy(url)}", flush=True)
else:
    print("this container's network is off: no proxy, no route, no resolver", flush=True)
