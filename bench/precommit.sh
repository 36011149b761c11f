#!/usr/bin/env bash
# A pre-commit run on 20 edited files, on trees of several sizes (unpacked by bench/precision.sh):
# a whole-tree run fills the cache and records the tree, then 20 files are edited and
# `cudasleuth lint` runs on them; the files are restored afterwards. Two edits: a comment
# appended (new bytes, same facts: the chunks are re-split, nothing is parsed, the stored
# results hold) and a line of code appended (`_bench_edit_N = ...`: new facts, so the rules run
# over the project). Beside it: ruff on the same 20 files. Median of RUNS runs (default 5), with
# the fastest and slowest run in brackets. Timed by hyperfine when it is installed (the command
# alone, started without a shell, each run after a `--prepare` step that records the tree and
# edits the files), else by `date` around the command (which also counts starting `date` and
# the command from the shell, a few milliseconds on a slow machine).
# Usage: bench/precommit.sh [TREE...]   (default: lightning torchvision timm transformers)
# TIMER=date: time with `date` even where hyperfine is installed (as before 2026-12-01).
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
# hyperfine's runs: median (fastest–slowest), seconds
summarize() { python3 -c "import json, statistics, sys; t = json.load(open(sys.argv[1]))['results'][0]['times']; print(f'{statistics.median(t):.3f} ({min(t):.3f}–{max(t):.3f})')" "$1"; }
hyperfine=$([ "${TIMER:-}" = date ] || command -v hyperfine || true)
if [ -n "$hyperfine" ]; then echo "timer: $("$hyperfine" --version)"; else echo "timer: date around the command"; fi

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
        # before each run: the files restored, a whole-tree run records the tree as it is
        # (restored files older than 2 s), its writes (the first run writes the whole cache)
        # flushed now rather than during the run measured, the 20 files edited
        cat > "$cache/prepare.sh" <<PREP
set -e
cd "$dir"
for f in $files; do cp "$cache/orig/$t/\$f" "\$f"; done
sleep 2.1
CUDASLEUTH_CACHE_DIR="$cache" "$bin" lint --format json > /dev/null 2>&1 || true
sync
for f in $files; do
    [ -z "\$(tail -c1 "\$f")" ] || echo >> "\$f"
    if [ "$kind" = comment ]; then echo "# edited \$RANDOM" >> "\$f"; else echo "_bench_edit_\$RANDOM = \$RANDOM" >> "\$f"; fi
done
sleep 2.1
PREP
        if [ -n "$hyperfine" ]; then
            "$hyperfine" -N --runs "$RUNS" --prepare "bash $cache/prepare.sh" --export-json "$cache/hf.json" "$bin lint --format json $files" > /dev/null 2>&1 || true
            med[$kind]=$(summarize "$cache/hf.json")
        else
            walls=()
            for run in $(seq "$RUNS"); do
                bash "$cache/prepare.sh"
                s=$(date +%s.%N)
                "$bin" lint --format json $files > /dev/null 2>&1 || true
                e=$(date +%s.%N)
                walls+=("$(python3 -c "print(f'{$e - $s:.3f}')")")
            done
            med[$kind]="$(printf '%s\n' "${walls[@]}" | median) ($(printf '%s\n' "${walls[@]}" | sort -n | head -1)–$(printf '%s\n' "${walls[@]}" | sort -n | tail -1))"
        fi
        if [ "$kind" = code ]; then
            # one more run for the phases
            bash "$cache/prepare.sh"
            CUDASLEUTH_TIMINGS=1 "$bin" lint --format json $files > /dev/null 2> "$cache/timings" || true
            phases="$(awk '/^timing scan/ {s=$3} /^timing rules/ {r=$3} END {print s " / " r}' "$cache/timings")"
        fi
        for f in $files; do cp "$cache/orig/$t/$f" "$f"; done
    done
    if [ -n "$hyperfine" ]; then
        "$hyperfine" -N --runs "$RUNS" --warmup 1 --export-json "$cache/hf.json" "$ruff check --no-cache --exit-zero -q --select E,F $files" > /dev/null 2>&1 || true
        rf=$(summarize "$cache/hf.json")
    else
        rw=()
        for _ in $(seq "$RUNS"); do
            s=$(date +%s.%N); "$ruff" check --no-cache --exit-zero -q --select E,F $files > /dev/null; e=$(date +%s.%N)
            rw+=("$(python3 -c "print(f'{$e - $s:.3f}')")")
        done
        rf=$(printf '%s\n' "${rw[@]}" | median)
    fi
    echo "| $t | $lines | ${med[comment]} | ${med[code]} | $phases | $rf |"
done
