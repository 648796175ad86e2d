# Demo: a memory bomb.
# Holds 64 MiB more every tenth of a second until the kernel says no. The container's memory limit is a
# cgroup limit, so it is the kernel that ends this program, not Cordon: watch the memory chart climb to the
# limit line, then the outcome banner say "oom" and the chart mark the kill.
import time

STEP_MIB = 64
held = []
while True:
    block = bytearray(STEP_MIB * 1024 * 1024)
    # Touch every page, or the kernel would not really hand the memory out.
    for offset in range(0, len(block), 4096):
        block[offset] = 1
    held.append(block)
    print(f"holding {len(held) * STEP_MIB} MiB", flush=True)
    time.sleep(0.1)
