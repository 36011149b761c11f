#!/usr/bin/env bash
# Throughput and peak memory of `cudasleuth explain --format json` against `rg -c Assertion`
# on the same generated log. See bench/README.md.
#
# Knobs (environment):
#   SIZES="256M 1G"        file sizes to generate and measure (bench/data/log-SIZE.log)
#   ASSERTS_PER_GIB=1000000 assert reports planted per GiB (1G -> 1,000,000; 256M -> 250,000)
#   RUNS=5                 timed runs per command (the median is reported; at least 3)
#   STREAM_SIZE=4G         also stream a log of this size through stdin straight from the
#                          generator (no disk used) and record peak RSS; empty to skip
#   STREAM_RUNS=3          runs of the streamed measurement
#   SKIP_BUILD=1           use the existing target/release/cudasleuth
#   BIN=path               binary to measure (default target/release/cudasleuth)
#   BIN_COMMIT=text        what to call that binary's source in RESULTS.md (default: this
#                          checkout's HEAD, "dirty" if src/ has changes)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
DATA="$ROOT/bench/data"
OUTDIR="$DATA/results"
mkdir -p "$DATA" "$OUTDIR"

SIZES=${SIZES:-"256M 1G"}
ASSERTS_PER_GIB=${ASSERTS_PER_GIB:-1000000}
RUNS=${RUNS:-5}
[ "$RUNS" -ge 3 ] || RUNS=3
STREAM_SIZE=${STREAM_SIZE-4G}
STREAM_RUNS=${STREAM_RUNS:-3}
BIN=${BIN:-"$ROOT/target/release/cudasleuth"}
BIN_COMMIT=${BIN_COMMIT:-}
PY=${PYTHON:-python3}

log() { printf '\n== %s\n' "$*" >&2; }

bytes_of() { # 256M -> bytes
    "$PY" -c 'import sys; sys.path.insert(0, "bench"); import gen_log; print(gen_log.parse_size(sys.argv[1]))' "$1"
}

# --- tools ------------------------------------------------------------------------------------
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    log "cargo build --release"
    cargo build --release
fi
[ -x "$BIN" ] || { echo "no binary at $BIN" >&2; exit 2; }

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! command -v rg >/dev/null; then
    log "installing ripgrep"
    $SUDO apt-get install -y ripgrep || { $SUDO apt-get update && $SUDO apt-get install -y ripgrep; } || cargo install ripgrep
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v hyperfine >/dev/null; then
    $SUDO apt-get install -y hyperfine >/dev/null 2>&1 || true
fi
HAVE_HYPERFINE=0
command -v hyperfine >/dev/null && HAVE_HYPERFINE=1
[ -x /usr/bin/time ] || { $SUDO apt-get install -y time || true; }
[ -x /usr/bin/time ] || { echo "need /usr/bin/time (apt-get install time) for peak RSS" >&2; exit 2; }

RG_VERSION=$(rg --version | sed -n 1p)
log "peer: $RG_VERSION; hyperfine: $([ $HAVE_HYPERFINE = 1 ] && hyperfine --version || echo 'not available, using /usr/bin/time loop')"

# --- data -------------------------------------------------------------------------------------
asserts_for() { # size in bytes -> assert count
    "$PY" -c 'import sys; print(int(sys.argv[1]) * int(sys.argv[2]) // (1 << 30))' "$1" "$ASSERTS_PER_GIB"
}

for S in $SIZES; do
    f="$DATA/log-$S.log"
    n=$(asserts_for "$(bytes_of "$S")")
    if [ ! -s "$f" ] || [ ! -s "$f.meta.json" ] || ! "$PY" - "$f.meta.json" "$n" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if m["args"]["asserts"] == int(sys.argv[2]) else 1)
EOF
    then
        avail=$(df -PB1 "$DATA" | awk 'NR==2 {print $4}')
        need=$(( $(bytes_of "$S") + (1 << 30) ))
        if [ "$avail" -lt "$need" ]; then
            echo "not enough disk for $f ($avail bytes free, want $need); lower SIZES" >&2
            exit 2
        fi
        log "generating $f ($n asserts)"
        "$PY" bench/gen_log.py --size "$S" --asserts "$n" --out "$f"
    fi
done

# --- measurements -----------------------------------------------------------------------------
# For context, rg is also timed searching for cudasleuth's own prefilter needles (read from
# src/log/scan.rs): the cost of "find the lines worth reading" with rg's engine.
"$PY" -c 'import sys; sys.path.insert(0, "bench"); import gen_log; print("\n".join(gen_log.scan_needles()))' > "$OUTDIR/needles.txt"

# Each measurement leaves one line per run in $OUTDIR/NAME.times: "wall_seconds max_rss_kb".

timed_loop() { # name command...   (command's stdout goes to /dev/null)
    local name=$1; shift
    : > "$OUTDIR/$name.times"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%e %M' -o "$OUTDIR/$name.one" "$@" >/dev/null 2>"$OUTDIR/$name.err" || true
        tail -1 "$OUTDIR/$name.one" >> "$OUTDIR/$name.times"
    done
}

warm() { cat "$1" >/dev/null; cat "$1" >/dev/null; }

for S in $SIZES; do
    f="$DATA/log-$S.log"
    log "$S: warming the page cache"
    warm "$f"

    log "$S: correctness"
    rc=0
    "$BIN" explain --format json "$f" > "$OUTDIR/report-$S.json" || rc=$?
    echo "$rc" > "$OUTDIR/report-$S.rc"
    rg -c Assertion "$f" > "$OUTDIR/rg-$S.count" || true

    log "$S: wall time"
    if [ $HAVE_HYPERFINE = 1 ]; then
        hyperfine --style basic --warmup 1 --runs "$RUNS" -i \
            --export-json "$OUTDIR/hyperfine-$S.json" \
            -n rg "rg -c Assertion '$f'" \
            -n cudasleuth "'$BIN' explain --format json '$f'" \
            -n rg-needles "rg -c -F -f '$OUTDIR/needles.txt' '$f'" >&2
    else
        timed_loop "wall-rg-$S" rg -c Assertion "$f"
        timed_loop "wall-cs-$S" "$BIN" explain --format json "$f"
        timed_loop "wall-rg-needles-$S" rg -c -F -f "$OUTDIR/needles.txt" "$f"
    fi

    log "$S: peak RSS"
    timed_loop "rss-cs-$S" "$BIN" explain --format json "$f"
    timed_loop "rss-rg-$S" rg -c Assertion "$f"
done

# The largest size once more, read from stdin (no mmap, no file size known in advance).
LARGEST=$(for S in $SIZES; do echo "$(bytes_of "$S") $S"; done | sort -n | tail -1 | cut -d' ' -f2)
if [ -n "$LARGEST" ]; then
    log "$LARGEST via stdin: peak RSS and wall time"
    f="$DATA/log-$LARGEST.log"
    warm "$f"
    : > "$OUTDIR/stdin-$LARGEST.times"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%e %M' -o "$OUTDIR/stdin.one" "$BIN" explain --format json - < "$f" >/dev/null 2>/dev/null || true
        tail -1 "$OUTDIR/stdin.one" >> "$OUTDIR/stdin-$LARGEST.times"
    done
fi

if [ -n "$STREAM_SIZE" ]; then
    n=$(asserts_for "$(bytes_of "$STREAM_SIZE")")
    log "$STREAM_SIZE streamed from the generator through stdin ($n asserts), $STREAM_RUNS runs"
    : > "$OUTDIR/stream-$STREAM_SIZE.times"
    for i in $(seq "$STREAM_RUNS"); do
        rc=0
        "$PY" bench/gen_log.py --size "$STREAM_SIZE" --asserts "$n" --out - \
                --meta "$OUTDIR/stream-$STREAM_SIZE.meta.json" 2>/dev/null \
            | /usr/bin/time -f '%e %M' -o "$OUTDIR/stream.one" "$BIN" explain --format json - \
            > "$OUTDIR/report-stream-$STREAM_SIZE.json" || rc=$?
        tail -1 "$OUTDIR/stream.one" >> "$OUTDIR/stream-$STREAM_SIZE.times"
        echo "$rc" > "$OUTDIR/report-stream-$STREAM_SIZE.rc"
    done
fi

# --- report -----------------------------------------------------------------------------------
log "results"
export SIZES RUNS STREAM_SIZE STREAM_RUNS BIN BIN_COMMIT RG_VERSION HAVE_HYPERFINE OUTDIR DATA LARGEST
"$PY" bench/report.py | tee bench/RESULTS.md
