# Demo: writing an artifact.
# Programs hand results back by writing into /mnt/data/outputs. Open the Files tab: the CSV and the PNG
# appear under outputs/ with their sizes and sha256, preview as a table and an image, and download to a
# folder of yours through the daemon's safe export.
import csv
import math
import os
import struct
import zlib

outputs = "/mnt/data/outputs"
os.makedirs(outputs, exist_ok=True)

rows = [(step, round(math.sin(step / 4) * 80, 2)) for step in range(40)]
with open(os.path.join(outputs, "wave.csv"), "w", newline="") as handle:
    writer = csv.writer(handle)
    writer.writerow(["step", "value"])
    writer.writerows(rows)

# A chart of the same values as a PNG, drawn pixel by pixel: the standard library has no plotting.
width, height = 400, 200
pixels = [bytearray(b"\xff\xff\xff" * width) for _ in range(height)]
for x in range(width):
    y = int(height / 2 - math.sin(x / 40) * 80)
    for dy in (-1, 0, 1):
        pixels[y + dy][3 * x:3 * x + 3] = b"\x2a\x6f\xdb"
raw = b"".join(b"\x00" + bytes(row) for row in pixels)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


with open(os.path.join(outputs, "wave.png"), "wb") as handle:
    handle.write(b"\x89PNG\r\n\x1a\n")
    handle.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
    handle.write(chunk(b"IDAT", zlib.compress(raw)))
    handle.write(chunk(b"IEND", b""))

for name in sorted(os.listdir(outputs)):
    print(f"wrote outputs/{name}: {os.path.getsize(os.path.join(outputs, name))} bytes", flush=True)
