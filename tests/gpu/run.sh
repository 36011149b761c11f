#!/usr/bin/env bash
# GPU checks of `cudasleuth repro`, for a machine with an NVIDIA GPU and torch (there is no
# cargo there: pass the release binary built elsewhere). Run from the repository root:
#   CUDASLEUTH_GPU_TESTS=1 tests/gpu/run.sh target/release/cudasleuth [OUT]
# Each check prints PASS or FAIL; the exit status is the number of failures.
set -uo pipefail
[ "${CUDASLEUTH_GPU_TESTS:-}" = 1 ] || { echo "set CUDASLEUTH_GPU_TESTS=1 to run the GPU checks"; exit 0; }
BIN=$(realpath "${1:?usage: tests/gpu/run.sh BIN [OUT]}")
OUT=$(realpath -m "${2:-/tmp/cudasleuth-gpu-checks}")
ROOT=$(pwd)
PY=${PYTHON:-python}
rm -rf "$OUT"; mkdir -p "$OUT"
fails=0
check() { # name, python expression over r (the report), rc
  local name=$1 expr=$2 rc=$3 json=$4
  if "$PY" - "$json" "$rc" "$expr" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline()); rc = int(sys.argv[2])
ok = eval(sys.argv[3])
print(("PASS" if ok else "FAIL"), end=" ")
sys.exit(0 if ok else 1)
PY
  then echo "$name"; else echo "$name"; head -c 1500 "$json"; echo; fails=$((fails + 1)); fi
}

# 1. the classic blog bug, synchronized on the GPU: the shift line, the sample, the bound
cd "$ROOT/fixtures/projects/000-seed-blog"
"$BIN" repro --format json --project . --out "$OUT/seed" -- "$PY" seed_blog_example.py > "$OUT/seed.json" 2> "$OUT/seed.err"; rc=$?
check "seed: caught on the GPU, shift line confirmed" \
  'rc == 1 and r["verdict"] == "device_assert" and r["witness"]["device"].startswith("cuda") and r["witness"]["provenance"]["kind"] == "code_line" and r["suspects"][0]["line"] == 17 and r["suspects"][0]["confirmed"] is True' $rc "$OUT/seed.json"
"$BIN" repro --color never --project . --log crash.log -- "$PY" seed_blog_example.py > "$OUT/seed.txt" 2>&1
"$BIN" repro --format json --project . --replay gpu --log crash.log -- "$PY" seed_blog_example.py > "$OUT/seed-replay.json" 2> "$OUT/seed-replay.err"; rc=$?
check "seed: NVRTC replay on the GPU matches the logged thread" \
  'rc == 1 and r["replay"]["backend"] == "gpu" and r["replay"]["verdict"] == "same_failure"' $rc "$OUT/seed-replay.json"
"$BIN" repro --sweep --format json --project . -- "$PY" seed_blog_example.py > "$OUT/sweep.json" 2> "$OUT/sweep.err"; rc=$?
check "seed: sweep lists bad samples, all value 3 bound 3" \
  'rc == 1 and all(b["value"] == 3 and b["bound"] == 3 for b in r["sweep"]["datasets"][0]["bad"]) and len(r["sweep"]["datasets"][0]["bad"]) > 0' $rc "$OUT/sweep.json"

# 2. every fixture project on the GPU: caught, class right, controls clean
for d in "$ROOT"/fixtures/projects/[0-9c]*/; do
  p=$(basename "$d"); [ "$p" = 000-seed-blog ] && continue
  [ -f "$d/EXPECTED.json" ] || continue
  [ -f "$d/train.py" ] || continue   # a notebook-only project (015)
  cd "$d"
  logarg=(); [ -f crash.log ] && logarg=(--log crash.log)
  "$BIN" repro --format json --project . --timeout 300 --out "$OUT/$p" "${logarg[@]}" -- "$PY" train.py > "$OUT/$p.json" 2> "$OUT/$p.err"; rc=$?
  "$PY" -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); x=r.get("replay") or {}; print("     replay:", x.get("backend"), x.get("geometry"), x.get("verdict"), "-", x.get("message", "")[:160])' "$OUT/$p.json" 2>/dev/null
  cls=$("$PY" -c 'import json,sys; print(json.load(open("EXPECTED.json"))["bug_class"] or "")')
  if [ -z "$cls" ]; then
    check "$p: control runs clean" 'rc == 0 and "witness" not in r' $rc "$OUT/$p.json"
  else
    check "$p: caught ($cls)" "rc == 1 and (r['witness']['category'] == '$cls' or r['witness']['op'] in ('one_hot', 'gather')) and r['suspects'][0]['confirmed'] is True" $rc "$OUT/$p.json"
  fi
done

# 3. two ranks under torchrun (gloo on one GPU): the bad rank's witness, no rank left hanging
cd "$ROOT/tests/gpu"
start=$(date +%s)
"$BIN" repro --format json --timeout 240 --out "$OUT/ddp" -- torchrun --nproc_per_node=2 ddp_bad_label.py > "$OUT/ddp.json" 2> "$OUT/ddp.err"; rc=$?
secs=$(( $(date +%s) - start ))
check "torchrun: a rank's witness, stopped in ${secs}s" \
  'rc == 1 and r["witness"]["op"] == "nll_loss" and r["witness"]["rank"] is not None and not r["run"]["timed_out"]' $rc "$OUT/ddp.json"
left=$(pgrep -f ddp_bad_label.py | wc -l)
[ "$left" = 0 ] && echo "PASS torchrun: no process left" || { echo "FAIL torchrun: $left processes left"; fails=$((fails + 1)); }

echo "failures: $fails"
exit $fails
