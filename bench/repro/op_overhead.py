"""Per-op cost of the shim's guard: 100k small additions on the default device, timed in the
process it runs in (run it plainly and under `cudasleuth repro` to compare)."""
import sys
import time

import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
a = torch.randn(8, device=dev)
b = torch.randn(8, device=dev)
for _ in range(1000):
    a + b
if dev == "cuda":
    torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(100000):
    a + b
if dev == "cuda":
    torch.cuda.synchronize()
print(f"{dev}: {(time.perf_counter() - t) * 10:.2f} us per op", file=sys.stderr)
