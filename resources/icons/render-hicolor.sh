#!/bin/bash
# SPDX-License-Identifier: MIT
# Renders the application icon (cordon.svg) into the hicolor sizes that packaging/CMakeLists.txt installs.
# Run it after changing cordon.svg; it needs rsvg-convert (package librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 22 24 32 48 64 128 256 512; do
    mkdir -p "hicolor/${size}x${size}"
    rsvg-convert -w "$size" -h "$size" cordon.svg -o "hicolor/${size}x${size}/org.cordon.workbench.png"
done
