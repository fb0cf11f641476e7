#!/bin/bash
# wgpu scene drift against cpu1 on the GPU machine: which scene feature drifts?
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/wavebrot; mkdir -p $OUT/d
for s in all damp absorb media sources plain01; do
  for be in cpu1 wgpu cuda; do
    $B render wave --scene .carry/sc/$s.toml --backend $be --npy $OUT/d/$s-$be.npy > $OUT/d/$s-$be.log 2>&1 || echo "$s $be rc=$?"
  done
done
python3 - <<'PY'
import numpy as np, os
d=os.environ['OUT']+'/d'
for s in ["all","damp","absorb","media","sources","plain01"]:
    r=np.load(f'{d}/{s}-cpu1.npy')
    for be in ['wgpu','cuda']:
        p=f'{d}/{s}-{be}.npy'
        if not os.path.exists(p): print(s,be,'missing'); continue
        a=np.load(p); diff=np.abs(a.astype(np.float64)-r)
        i=np.unravel_index(np.argmax(diff),diff.shape)
        print(f'{s:8s} {be:5s} max|diff|={diff.max():.3e} at {i} ndiff={(diff>0).sum()} of {diff.size} max|f|={np.abs(r).max():.3f}')
PY
