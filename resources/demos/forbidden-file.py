# Demo: reading what is not yours.
# Looks for your real files, by the paths they have on the host (the workbench fills in your home folder),
# and tries to change the system. The sandbox's root is a fresh, read-only file system with only what programs
# need: your home, your keys, /etc/shadow and the kernel's interfaces are not there, masked, or read-only.
import os

HOST_HOME = "@HOST_HOME@"  # your home folder on the host, filled in by the workbench

targets = [
    "/etc/shadow",
    HOST_HOME,
    os.path.join(HOST_HOME, ".ssh/id_rsa"),
    os.path.join(HOST_HOME, ".bash_history"),
    os.path.join(HOST_HOME, ".config/cordon/cordon-workbench.conf"),
    "/proc/kcore",
    "/var/run/docker.sock",
]
print(f"looking for your files from the host, under {HOST_HOME}", flush=True)
for path in targets:
    try:
        if os.path.isdir(path):
            entries = os.listdir(path)
            print(f"read {path}: READABLE, {len(entries)} entries {entries[:5]}", flush=True)
        else:
            with open(path, "rb") as handle:
                handle.read(16)
            print(f"read {path}: READABLE", flush=True)
    except FileNotFoundError:
        print(f"read {path}: blocked (not in the sandbox at all)", flush=True)
    except OSError as error:
        print(f"read {path}: blocked ({error.strerror})", flush=True)

for path in ("/usr/bin/python3", "/etc/passwd"):
    try:
        with open(path, "ab"):
            pass
        print(f"write {path}: WRITABLE", flush=True)
    except OSError as error:
        print(f"write {path}: blocked ({error.strerror})", flush=True)

print(f"running as uid {os.getuid()}; the workspace /mnt/data is all this program can keep", flush=True)
