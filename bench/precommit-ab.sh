#!/usr/bin/env bash
# Two builds of cudasleuth compared on the same pre-commit runs: for each of N rounds, both
# record the tree (each with its own cache), the same 20 files get a line of code appended,
# and both lint them, in alternating order; the files are restored afterwards. Prints each
# build's median wall time and every run (ms). For changes whose gain is within the machine's
# run-to-run noise, which pairing cancels in part.
# Usage: bench/precommit-ab.sh BIN_A BIN_B [TREE] [N]   (default transformers, 9 rounds)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BIN_A BIN_B [TREE] [N]" >&2; exit 2; }
a=$(realpath "$1"); b=$(realpath "$2"); t=${3:-transformers}; n=${4:-9}
WORK=${WORK:-/tmp/precision}
dir=$WORK/src/$t
[ -d "$dir" ] || { echo "no tree at $dir: run bench/precision.sh first" >&2; exit 2; }
work=$(mktemp -d)
cd "$dir"
files=$(find . -name '*.py' | sort | awk 'NR % 7 == 0 && n < 20 {print; n++}' | tr '\n' ' ')
for f in $files; do cp --parents "$f" "$work/"; done
restore() { for f in $files; do cp "$work/$f" "$f"; done; }
trap 'restore; rm -rf "$work"' EXIT
ms() { local s e; s=$(date +%s%N); CUDASLEUTH_CACHE_DIR=$1 "$2" lint --format json $files > /dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 100000 )); }
ra=(); rb=()
for i in $(seq "$n"); do
    restore
    sleep 2.1
    CUDASLEUTH_CACHE_DIR=$work/cache-a "$a" lint --format json > /dev/null 2>&1 || true
    CUDASLEUTH_CACHE_DIR=$work/cache-b "$b" lint --format json > /dev/null 2>&1 || true
    sync
    for f in $files; do [ -z "$(tail -c1 "$f")" ] || echo >> "$f"; echo "_bench_edit_$i = $RANDOM" >> "$f"; done
    sleep 2.1
    if [ $((i % 2)) = 0 ]; then ra+=("$(ms "$work/cache-a" "$a")"); rb+=("$(ms "$work/cache-b" "$b")"); else rb+=("$(ms "$work/cache-b" "$b")"); ra+=("$(ms "$work/cache-a" "$a")"); fi
done
med() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "%.1f", v[int((NR+1)/2)] / 10}'; }
tenths() { for x in "$@"; do printf '%s ' "$(awk "BEGIN {printf \"%.1f\", $x / 10}")"; done; }
echo "$t, $n rounds, 20 files with code appended: A $(med "${ra[@]}") ms, B $(med "${rb[@]}") ms"
echo "A: $(tenths "${ra[@]}")"
echo "B: $(tenths "${rb[@]}")"
