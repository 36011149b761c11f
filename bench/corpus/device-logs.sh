#!/usr/bin/env bash
# On the GPU machine: the real logs of the corpus's buggy projects, asynchronous and with
# CUDA_LAUNCH_BLOCKING=1, two processes at a time (one project's two runs), into
# $OUT/logs.tar.gz (<pNN>_async.log, <pNN>_sync.log), rewritten after each project so that a
# run cut short still brings back what it made.
#   bench/corpus/device-logs.sh [SECONDS_PER_RUN] [NAME...]   # default 20 s, every buggy project
#   TAR=projects2.tar.gz bench/corpus/device-logs.sh 25        # the second batch (how logs-h200-2 was made)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T=${1:-20}; shift || true
mkdir -p /tmp/bin && printf '#!/bin/sh\nexec python3 "$@"\n' > /tmp/bin/python && chmod +x /tmp/bin/python
export PATH=/tmp/bin:$PATH
W=/tmp/corpus-runs; L=/tmp/corpus-logs; rm -rf "$W" "$L"; mkdir -p "$W" "$L"
tar xzf "$HERE/${TAR:-projects.tar.gz}" -C "$W"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for p in "$W"/projects/*/; do
        grep -q '"culprit": null' "$p/truth.json" || names+=("$(basename "$p")")
    done
fi
for n in "${names[@]}"; do
    id=${n:0:3}
    cp -r "$W/projects/$n" "/tmp/runA_$n"; cp -r "$W/projects/$n" "/tmp/runS_$n"
    ( cd "/tmp/runA_$n" && timeout "$T" bash run.sh > "$L/${id}_async.log" 2>&1 ) &
    ( cd "/tmp/runS_$n" && CUDA_LAUNCH_BLOCKING=1 timeout "$T" bash run.sh > "$L/${id}_sync.log" 2>&1 ) &
    wait
    tar czf "$OUT/part.tgz" -C "$L" . && mv "$OUT/part.tgz" "$OUT/logs.tar.gz"
done
