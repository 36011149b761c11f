#!/usr/bin/env bash
# On the GPU machine: `cudasleuth repro` on every project of the value-provenance corpus
# (bench/corpus), buggy and clean, two at a time, each report as $OUT/<pNN>.json (rewritten into
# $OUT/repro.tar.gz after each pair, so a run cut short still brings back what it made).
#   BIN=target/release/cudasleuth bench/repro/corpus.sh [TIMEOUT_S] [NAME...]
#   TAR=projects2.tar.gz ...   # the second batch
#   DEADLINE=540 ...           # start no new pair after this many seconds (a device call's limit)
#   REVERSE=1 ...              # the second batch's authors first
#   CPU=1 ...                  # repro --cpu (a machine without a GPU)
#   RUNS=DIR REPORTS=DIR ...   # where the projects run and the reports go (two runs at once)
# Score here with bench/repro/score.py.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$(dirname "${BIN:-target/release/cudasleuth}")" && pwd)/$(basename "${BIN:-cudasleuth}")
T=${1:-120}; shift || true
mkdir -p /tmp/bin && printf '#!/bin/sh\nexec python3 "$@"\n' > /tmp/bin/python && chmod +x /tmp/bin/python
export PATH=/tmp/bin:$PATH
W=${RUNS:-/tmp/repro-runs}; R=${REPORTS:-/tmp/repro-reports}; rm -rf "$W" "$R"; mkdir -p "$W" "$R"
for t in ${TAR:-projects.tar.gz projects2.tar.gz}; do tar xzf "$HERE/../corpus/$t" -C "$W"; done
names=("$@")
[ ${#names[@]} -eq 0 ] && for p in "$W"/projects/*/; do names+=("$(basename "$p")"); done
# REVERSE=1: the last authors first (the second batch, when a device call may not fit both)
[ -n "${REVERSE:-}" ] && mapfile -t names < <(printf '%s\n' "${names[@]}" | sort -r)
one() {
    local n=$1 id=${1:0:3}
    ( cd "$W/projects/$n" && SECONDS=0 &&
      "$BIN" repro ${CPU:+--cpu} --project . --format json -q --timeout "$T" --out "$R/$id.out" -- bash run.sh > "$R/$id.json" 2> "$R/$id.err";
      echo "$? $SECONDS" > "$R/$id.rc" )
}
i=0
SECONDS=0; START=$(date +%s)
while [ $i -lt ${#names[@]} ]; do
    [ -n "${DEADLINE:-}" ] && [ $(( $(date +%s) - START )) -ge "$DEADLINE" ] && { echo "deadline: stopped before ${names[$i]}"; break; }
    one "${names[$i]}" &
    [ $((i + 1)) -lt ${#names[@]} ] && one "${names[$((i + 1))]}" &
    wait
    i=$((i + 2))
    tar czf "$OUT/part.tgz" -C "$R" --exclude='*.npy' . && mv "$OUT/part.tgz" "$OUT/repro.tar.gz"
done
