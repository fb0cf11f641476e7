#!/bin/bash
# Stop 36, call F: NVIDIA's pipeline statistics (VK_KHR_pipeline_executable_properties, a scratch
# ash program) of the blocked scene kernel as 9d5ca61 makes it, of variants of it whose entry point
# calls only some tile kinds, and of the plain blocked kernel.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for v in scene scene_nolayer scene_plainonly scene_layeronly; do echo "== $v"; .carry/ps/pipestats .carry/ps/$v.spv scene_mixed dssssssssss 2>&1 | grep -E "Register|Binary|Shared" | cut -c1-60; done
echo "== plain"; .carry/ps/pipestats .carry/ps/plain.spv wave_blocked_workgroup dssss 2>&1 | grep -E "Register|Binary|Shared|rror" | cut -c1-80
