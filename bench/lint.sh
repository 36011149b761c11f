#!/usr/bin/env bash
# Lint speed on a large real tree (transformers, unpacked by bench/precision.sh): a cold run
# (no cache), a warm re-run (content-hash cache), and a pre-commit-style run on 20 files, with
# ruff (a linter written in Rust, all its default rules) on the same tree as the named peer.
# Usage: bench/lint.sh [TREE]   (default: $WORK/src/transformers, WORK=/tmp/precision)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
WORK=${WORK:-/tmp/precision}
tree=${1:-$WORK/src/transformers}
[ -d "$tree" ] || { echo "no tree at $tree: run bench/precision.sh first (it unpacks the packages)"; exit 2; }
bin=$root/target/release/cudasleuth
[ -x "$bin" ] || (cd "$root" && cargo build --release -q)
venv=$WORK/ruff-venv
[ -x "$venv/bin/ruff" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q ruff; }
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export CUDASLEUTH_CACHE_DIR=$cache
cd "$tree"
lines=$(find . -name '*.py' -print0 | xargs -0 cat | wc -l)
t() { /usr/bin/time -f "%e %M" "$@" > /dev/null 2> "$cache/time" || true; tail -n1 "$cache/time"; }
cold=$(t "$bin" lint --no-cache --format json)
first=$(t "$bin" lint --format json)
warm=$(t "$bin" lint --format json)
files=$(find . -name '*.py' -path '*models*' | awk 'NR <= 20' | tr '\n' ' ')
pre=$(t "$bin" lint --format json $files)
ruff_cold=$(t "$venv/bin/ruff" check --no-cache --exit-zero -q .)
ruff_files=$(t "$venv/bin/ruff" check --no-cache --exit-zero -q $files)
echo "| run | wall s | max RSS KiB |"
echo "|---|--:|--:|"
echo "| cudasleuth lint, cold (--no-cache), $lines lines | ${cold% *} | ${cold#* } |"
echo "| cudasleuth lint, first run filling the cache | ${first% *} | ${first#* } |"
echo "| cudasleuth lint, warm re-run | ${warm% *} | ${warm#* } |"
echo "| cudasleuth lint, 20 files given (pre-commit), warm | ${pre% *} | ${pre#* } |"
echo "| ruff check (peer), whole tree, no cache | ${ruff_cold% *} | ${ruff_cold#* } |"
echo "| ruff check (peer), the same 20 files | ${ruff_files% *} | ${ruff_files#* } |"
python3 -c "c,w=float('${cold% *}'),float('${warm% *}'); print(f'warm/cold = {w/c:.1%} (goal < 10%)')"
