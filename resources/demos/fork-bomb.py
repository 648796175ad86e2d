# Demo: a fork bomb, on a leash.
# Starts processes that do nothing but wait, as fast as it can. The container's pids limit (a cgroup limit,
# 256 processes unless the policy says otherwise) makes the kernel refuse the next fork. The program then
# reports how far it got and cleans up after itself, so that the container stays usable.
import os
import signal
import time

children = []
try:
    while True:
        pid = os.fork()
        if pid == 0:
            time.sleep(120)
            os._exit(0)
        children.append(pid)
        if len(children) % 50 == 0:
            print(f"{len(children)} processes started", flush=True)
except OSError as error:
    print(f"fork refused after {len(children)} processes: {error.strerror}", flush=True)
    print("the container's pids limit held: the kernel refused the next process", flush=True)
finally:
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    for pid in children:
        os.waitpid(pid, 0)
    print(f"all {len(children)} processes stopped again", flush=True)
