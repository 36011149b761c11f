#!/usr/bin/env bash
# repro's overhead on a healthy run, on a GPU machine: the same script plain, with
# CUDA_LAUNCH_BLOCKING=1, and under `cudasleuth repro` (which sets CUDA_LAUNCH_BLOCKING=1 and
# guards the ops). Whole-process wall time (python start, torch import, data, STEPS steps),
# best of N runs each. Usage: bench/repro/overhead.sh BIN [N]
set -euo pipefail
BIN=$(realpath "${1:?usage: overhead.sh path/to/cudasleuth [runs]}")
N=${2:-3}
cd "$(dirname "$0")"
PY=${PYTHON:-python}
"$PY" - "$BIN" "$N" "$PY" <<'PY'
import os, subprocess, sys, time
bin_, n, py = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def best(cmd, extra):
    env = dict(os.environ, **extra)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
        assert r.returncode == 0, (cmd, r.returncode)
    return min(times)
subprocess.run([py, "healthy_train.py"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm caches
p = best([py, "healthy_train.py"], {})
b = best([py, "healthy_train.py"], {"CUDA_LAUNCH_BLOCKING": "1"})
r = best([bin_, "repro", "-q", "--format", "json", "--", py, "healthy_train.py"], {})
print(f"steps                     {os.environ.get('STEPS', '300')}, best of {n}")
print(f"plain                     {p:7.2f} s")
print(f"CUDA_LAUNCH_BLOCKING=1    {b:7.2f} s  ({b / p:.2f}x plain)")
print(f"cudasleuth repro          {r:7.2f} s  ({r / p:.2f}x plain, {r / max(p, b):.2f}x the later of the two)")
PY
