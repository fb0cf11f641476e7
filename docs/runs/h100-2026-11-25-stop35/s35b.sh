#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s35b; mkdir -p $O; cp .carry/ps/*.spv $O/
for v in scene v1_nolayer v2_layeronly; do echo "== $v"; .carry/ps/pipestats $O/$v.spv scene_mixed dssssssssss ir 2>&1 | head -40; done
ls -la $O
