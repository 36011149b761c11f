#!/usr/bin/env bash
# Lint speed on a large real tree (transformers, unpacked by bench/precision.sh): a cold run
# (no cache), the first run filling the cache, a warm re-run, pre-commit-style runs on 20 files
# (nothing changed; the 20 files touched with their bytes unchanged; a comment, then a line of
# code, appended to the 20 files), with
# two peers on the same tree and the same files:
# ruff (`ruff check --select E,F`) and ast-grep (`ast-grep scan` with bench/lint-ast-grep.yml,
# the syntactic anchors of cudasleuth's rules).
# Usage: bench/lint.sh [TREE]   (default: $WORK/src/transformers, WORK=/tmp/precision)
#   BIN=path/to/cudasleuth bench/lint.sh   # use that binary (default: the release build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
WORK=${WORK:-/tmp/precision}
tree=${1:-$WORK/src/transformers}
[ -d "$tree" ] || { echo "no tree at $tree: run bench/precision.sh first (it unpacks the packages)"; exit 2; }
bin=${BIN:-${CARGO_TARGET_DIR:-$root/target}/release/cudasleuth}
[ -n "${BIN:-}" ] || (cd "$root" && cargo build --release -q)
ruff_venv=$WORK/ruff-venv
[ -x "$ruff_venv/bin/ruff" ] || { python3 -m venv "$ruff_venv" && "$ruff_venv/bin/pip" install -q ruff; }
sg_venv=$WORK/ast-grep-venv
[ -x "$sg_venv/bin/ast-grep" ] || { python3 -m venv "$sg_venv" && "$sg_venv/bin/pip" install -q ast-grep-cli; }
rules=$here/lint-ast-grep.yml
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export CUDASLEUTH_CACHE_DIR=$cache
cd "$tree"
lines=$(find . -name '*.py' -print0 | xargs -0 cat | wc -l)
t() { /usr/bin/time -f "%e %M" "$@" > /dev/null 2> "$cache/time" || true; tail -n1 "$cache/time"; }
cold=$(t "$bin" lint --no-cache --format json)
first=$(t "$bin" lint --format json)
warm=$(t "$bin" lint --format json)
files=$(find . -name '*.py' -path '*models*' | sort | awk 'NR <= 20' | tr '\n' ' ')
pre=$(t "$bin" lint --format json $files)
# the 20 files touched (new stamps, same bytes): read and hashed, the stored results kept
touch $files
sleep 2.1
pre_touched=$(t "$bin" lint --format json $files)
# the 20 files edited. A comment appended: the chunks are split again, none changed, the facts
# are the same and the stored results hold. A line of code appended: one new chunk parsed per
# file, the facts changed, every other file's facts come from the cache by the key the summary
# holds, and the rules run over the project.
mkdir -p "$cache/orig"
for f in $files; do cp --parents "$f" "$cache/orig/"; done
edit() {
    for f in $files; do
        cp "$cache/orig/$f" "$f"
        [ -z "$(tail -c1 "$f")" ] || echo >> "$f"
        echo "$1" >> "$f"
    done
    sleep 2.1
}
edit "# edited"
pre_comment=$(t "$bin" lint --format json $files)
for f in $files; do cp "$cache/orig/$f" "$f"; done
sleep 2.1
"$bin" lint --format json > /dev/null 2>&1 || true
edit "_bench_edit = 1"
pre_changed=$(t "$bin" lint --format json $files)
for f in $files; do cp "$cache/orig/$f" "$f"; done
ruff_cold=$(t "$ruff_venv/bin/ruff" check --no-cache --exit-zero -q --select E,F .)
ruff_files=$(t "$ruff_venv/bin/ruff" check --no-cache --exit-zero -q --select E,F $files)
sg_cold=$(t "$sg_venv/bin/ast-grep" scan --rule "$rules" .)
# the floor: tree-sitter's own parse, and parse + the queries of grammars/python, on all cores
floor=$(cd "$root" && cargo bench -q --bench scan_floor -- "$tree" 2>/dev/null)
parse_only=$(echo "$floor" | sed -n 's/^parse only: \([0-9.]*\) s.*/\1/p')
parse_queries=$(echo "$floor" | sed -n 's/^parse + queries: \([0-9.]*\) s.*/\1/p')
sg_files=$(t "$sg_venv/bin/ast-grep" scan --rule "$rules" $files)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || true)
echo "$(date -u +%F), $(nproc) cores ($cpu), $lines lines in $tree"
echo "cudasleuth $("$bin" --version | awk '{print $2}'), $("$ruff_venv/bin/ruff" --version), $("$sg_venv/bin/ast-grep" --version)"
echo
echo "| run | wall s | max RSS KiB |"
echo "|---|--:|--:|"
echo "| cudasleuth lint, cold (--no-cache) | ${cold% *} | ${cold#* } |"
echo "| cudasleuth lint, first run filling the cache | ${first% *} | ${first#* } |"
echo "| cudasleuth lint, warm re-run | ${warm% *} | ${warm#* } |"
echo "| cudasleuth lint, 20 files given, warm | ${pre% *} | ${pre#* } |"
echo "| cudasleuth lint, 20 files given, touched (same bytes) | ${pre_touched% *} | ${pre_touched#* } |"
echo "| cudasleuth lint, 20 files given, a comment appended to each | ${pre_comment% *} | ${pre_comment#* } |"
echo "| cudasleuth lint, 20 files given, a line of code appended to each | ${pre_changed% *} | ${pre_changed#* } |"
echo "| ruff check --select E,F, whole tree, no cache | ${ruff_cold% *} | ${ruff_cold#* } |"
echo "| ruff check --select E,F, the same 20 files | ${ruff_files% *} | ${ruff_files#* } |"
echo "| ast-grep scan (bench/lint-ast-grep.yml), whole tree | ${sg_cold% *} | ${sg_cold#* } |"
echo "| ast-grep scan, the same 20 files | ${sg_files% *} | ${sg_files#* } |"
echo "| floor: tree-sitter parse only (benches/scan_floor.rs) | $parse_only | |"
echo "| floor: tree-sitter parse + grammars/python queries | $parse_queries | |"
python3 -c "c,w=float('${cold% *}'),float('${warm% *}'); print(f'\nwarm/cold = {w/c:.1%} (goal < 10%)')"
