# Demo: reading what is not yours.
# Tries to read secrets and host files that code should never see, and to change the system. The sandbox's
# root is a fresh, read-only file system with only what programs need: the host's home directories, keys,
# /etc/shadow and kernel interfaces are simply not there, or are masked, or are read-only.
import os

targets = [
    "/etc/shadow",
    "/root/.ssh/id_rsa",
    os.path.expanduser("~/.aws/credentials"),
    "/home",
    "/proc/kcore",
    "/sys/firmware",
    "/var/run/docker.sock",
]
for path in targets:
    try:
        if os.path.isdir(path):
            entries = os.listdir(path)
            print(f"read {path}: {len(entries)} entries {entries[:5]}", flush=True)
        else:
            with open(path, "rb") as handle:
                handle.read(16)
            print(f"read {path}: READABLE", flush=True)
    except OSError as error:
        print(f"read {path}: blocked ({error.strerror})", flush=True)

for path in ("/usr/bin/python3", "/etc/passwd"):
    try:
        with open(path, "ab"):
            pass
        print(f"write {path}: WRITABLE", flush=True)
    except OSError as error:
        print(f"write {path}: blocked ({error.strerror})", flush=True)

print(f"running as uid {os.getuid()} in {os.getcwd()}; the workspace /mnt/data is all there is", flush=True)
