#!/usr/bin/env bash
# Scores `explain --project` and `lint` on the value-provenance corpus (bench/corpus/README.md).
#
#   bench/corpus/score.sh [BIN]      # default: target/release/cudasleuth
#   V=1 bench/corpus/score.sh        # list the misses (do not, on a half you keep unseen)
#   HALVES=tune bench/corpus/score.sh   # halves: tune seen tune2 unseen2 tune3 unseen3 tune4 unseen4 tune5 unseen5 tune6 unseen6 tune7 unseen7 (split.txt)
#
# Unpacks projects.tar.gz into $WORK (default /tmp/cudasleuth-corpus), lays each half out as
# score_projects.py wants it (DIR/<pNN_name>/ and LOGS/<pNN>_{async,sync}.log), and prints
# the figures of the four modes for each half:
#   async: the project's real H200 log (logs-h200.tar.gz, <pNN>_async.log): the assert and a
#          traceback at whichever later call noticed the sticky error;
#   sync:  the real H200 log under CUDA_LAUNCH_BLOCKING=1 (<pNN>_sync.log), traceback at the op;
#   cpu:   a real CPU run (logs-cpu/), PyTorch's CPU error at the op;
#   lint:  no log, lint --no-cache on a copy of each project.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$REPO/target/release/cudasleuth}
WORK=${WORK:-/tmp/cudasleuth-corpus}
SCORE=${SCORE:-$REPO/../shared/tools/score_projects.py}
HERE=$REPO/bench/corpus
rm -rf "$WORK" && mkdir -p "$WORK/all" "$WORK/h200" "$WORK/cpu"
tar xzf "$HERE/projects.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects2.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects3.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects4.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects5.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects6.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects7.tar.gz" -C "$WORK/all"
while read -r name half; do
    mkdir -p "$WORK/$half"
    ln -s "$WORK/all/projects/$name" "$WORK/$half/$name"
done < "$HERE/split.txt"
tar xzf "$HERE/logs-h200.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-2.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-3.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-4.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-5.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-6.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-7.tar.gz" -C "$WORK/h200"
for f in "$HERE"/logs-cpu/*_cpu.log; do
    id=$(basename "$f" _cpu.log)
    ln -s "$f" "$WORK/cpu/${id}_sync.log"
done
for half in ${HALVES:-tune seen tune2 unseen2 tune3 unseen3 tune4 unseen4 tune5 unseen5 tune6 unseen6 tune7 unseen7}; do
    echo "== $half"
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/h200" async ${V:+-v} | tail -n ${V:+100}${V:-1}
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/h200" sync ${V:+-v} | tail -n ${V:+100}${V:-1}
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/cpu" sync ${V:+-v} | tail -n ${V:+100}${V:-1} | sed 's/^sync/cpu/'
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/cpu" lint ${V:+-v} | tail -n ${V:+100}${V:-1}
done
