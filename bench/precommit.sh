#!/usr/bin/env bash
# A pre-commit run on 20 edited files, on trees of several sizes (unpacked by bench/precision.sh):
# a whole-tree run fills the cache and records the tree, then 20 files are edited and
# `cudasleuth lint` runs on them; the files are restored afterwards. Two edits: a comment
# appended (new bytes, same facts: the chunks are re-split, nothing is parsed, the stored
# results hold) and a line of code appended (`_bench_edit_N = ...`: new facts, so the rules run
# over the project). Beside it: ruff on the same 20 files. Median of RUNS runs (default 5), with
# the fastest and slowest run in brackets.
# Usage: bench/precommit.sh [TREE...]   (default: lightning torchvision timm transformers)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
WORK=${WORK:-/tmp/precision}
RUNS=${RUNS:-5}
bin=${BIN:-${CARGO_TARGET_DIR:-$root/target}/release/cudasleuth}
[ -n "${BIN:-}" ] || (cd "$root" && cargo build --release -q)
ruff=$WORK/ruff-venv/bin/ruff
[ -x "$ruff" ] || { python3 -m venv "$WORK/ruff-venv" && "$WORK/ruff-venv/bin/pip" install -q ruff; }
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(lightning torchvision timm transformers)
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export CUDASLEUTH_CACHE_DIR=$cache
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| tree | lines | 20 files, comment appended: wall s (min–max) | 20 files, code appended: wall s (min–max) | code: phases (scan / rules) s | ruff, same files: wall s |"
echo "|---|--:|--:|--:|--:|--:|"
for t in "${trees[@]}"; do
    dir=$WORK/src/$t
    [ -d "$dir" ] || { echo "no tree at $dir: run bench/precision.sh first" >&2; exit 2; }
    cd "$dir"
    lines=$(find . -name '*.py' -print0 | xargs -0 cat | wc -l)
    files=$(find . -name '*.py' | sort | awk 'NR % 7 == 0 && n < 20 {print; n++}' | tr '\n' ' ')
    mkdir -p "$cache/orig/$t"
    for f in $files; do cp --parents "$f" "$cache/orig/$t/"; done
    declare -A med=()
    phases=""
    for kind in comment code; do
        walls=()
        for run in $(seq "$RUNS"); do
            # a whole-tree run records the tree as it is (restored files older than 2 s)
            sleep 2.1
            "$bin" lint --format json > /dev/null 2>&1 || true
            # its writes (the first run writes the whole cache) flushed now, not during the run
            # measured
            sync
            for f in $files; do
                cp "$cache/orig/$t/$f" "$f"
                [ -z "$(tail -c1 "$f")" ] || echo >> "$f"
                if [ "$kind" = comment ]; then echo "# edited $run" >> "$f"; else echo "_bench_edit_$run = $RANDOM" >> "$f"; fi
            done
            sleep 2.1
            s=$(date +%s.%N)
            CUDASLEUTH_TIMINGS=1 "$bin" lint --format json $files > /dev/null 2> "$cache/timings" || true
            e=$(date +%s.%N)
            walls+=("$(python3 -c "print(f'{$e - $s:.3f}')")")
            [ "$kind" = code ] && phases="$(awk '/^timing scan/ {s=$3} /^timing rules/ {r=$3} END {print s " / " r}' "$cache/timings")"
            for f in $files; do cp "$cache/orig/$t/$f" "$f"; done
        done
        med[$kind]="$(printf '%s\n' "${walls[@]}" | median) ($(printf '%s\n' "${walls[@]}" | sort -n | head -1)–$(printf '%s\n' "${walls[@]}" | sort -n | tail -1))"
    done
    rw=()
    for _ in $(seq "$RUNS"); do
        s=$(date +%s.%N); "$ruff" check --no-cache --exit-zero -q --select E,F $files > /dev/null; e=$(date +%s.%N)
        rw+=("$(python3 -c "print(f'{$e - $s:.3f}')")")
    done
    rf=$(printf '%s\n' "${rw[@]}" | median)
    echo "| $t | $lines | ${med[comment]} | ${med[code]} | $phases | $rf |"
done
