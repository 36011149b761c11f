#!/usr/bin/env bash
# repro's overhead on a healthy run, on a GPU machine: the same script plain, with
# CUDA_LAUNCH_BLOCKING=1, and under `cudasleuth repro` (which sets CUDA_LAUNCH_BLOCKING=1 and
# guards the ops). Whole-process wall time (python start, torch import, data, 300 steps),
# best of N runs each. Usage: bench/repro/overhead.sh BIN [N]
set -euo pipefail
BIN=${1:?usage: overhead.sh path/to/cudasleuth [runs]}
N=${2:-3}
cd "$(dirname "$0")"
PY=${PYTHON:-python}
best() { sort -n | head -n1; }
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
"$PY" healthy_train.py 2>/dev/null  # warm caches (kernels, files)
plain=$(for i in $(seq "$N"); do t "$PY" healthy_train.py; done | best)
blocking=$(for i in $(seq "$N"); do CUDA_LAUNCH_BLOCKING=1 t "$PY" healthy_train.py; done | best)
repro=$(for i in $(seq "$N"); do t "$BIN" repro -q --format json -- "$PY" healthy_train.py; done | best)
python3 - "$plain" "$blocking" "$repro" <<'PY'
import sys
p, b, r = map(float, sys.argv[1:])
print(f"plain                     {p:7.2f} s")
print(f"CUDA_LAUNCH_BLOCKING=1    {b:7.2f} s  ({b / p:.2f}x plain)")
print(f"cudasleuth repro          {r:7.2f} s  ({r / p:.2f}x plain, {r / max(p, b):.2f}x the later)")
PY
