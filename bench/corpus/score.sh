#!/usr/bin/env bash
# Scores `explain --project` and `lint` on the value-provenance corpus (bench/corpus/README.md).
#
#   bench/corpus/score.sh [BIN]      # default: target/release/cudasleuth
#   V=1 bench/corpus/score.sh        # list the misses (do not, on a half you keep unseen)
#   RAN=1 bench/corpus/score.sh     # each project as it is after its run.sh ran once (CPU)
#   HALVES=tune bench/corpus/score.sh   # halves: tune seen tune2 unseen2 tune3 unseen3 tune4 unseen4 tune5 unseen5 tune6 unseen6 tune7 unseen7 tune8 unseen8 tune9 seen9 tune10 unseen10 tune11 unseen11 tune12 unseen12 tune13 unseen13 tune14 unseen14 tune15 unseen15 tune16 unseen16 tune17 unseen17 tune18 unseen18 tune19 unseen19 tune20 unseen20 tune21 unseen21 tune22 unseen22 tune23 unseen23 tune24 unseen24 tune25 unseen25 (split.txt)
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
tar xzf "$HERE/projects8.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects9.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects10.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects11.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects12.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects13.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects14.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects15.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects16.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects17.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects18.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects19.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects20.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects21.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects22.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects23.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects24.tar.gz" -C "$WORK/all"
tar xzf "$HERE/projects25.tar.gz" -C "$WORK/all"
# RAN=1: each project as its user has it after running it once: run.sh on this machine's CPU
# (python3 with torch and numpy on PATH; the crash the bug makes is expected), the files it
# writes (generated data, vocabularies, label maps, metadata) left in place, then scored.
if [ -n "${RAN:-}" ]; then
    mkdir -p "$WORK/bin" "$WORK/runs"
    printf '#!/bin/sh\nexec python3 "$@"\n' > "$WORK/bin/python" && chmod +x "$WORK/bin/python"
    for half in ${HALVES:-tune seen tune2 unseen2 tune3 unseen3 tune4 unseen4 tune5 unseen5 tune6 unseen6 tune7 unseen7 tune8 unseen8 tune9 seen9 tune10 unseen10 tune11 unseen11 tune12 unseen12 tune13 unseen13 tune14 unseen14 tune15 unseen15 tune16 unseen16 tune17 unseen17 tune18 unseen18 tune19 unseen19 tune20 unseen20 tune21 unseen21 tune22 unseen22 tune23 unseen23 tune24 unseen24 tune25 unseen25}; do
        awk -v h="$half" '$2 == h {print $1}' "$HERE/split.txt"
    done | (cd "$WORK/all/projects" && PATH="$WORK/bin:$PATH" xargs -P "${JOBS:-2}" -I{} \
        sh -c 'cd "$1" && CUDA_VISIBLE_DEVICES= timeout 90 bash run.sh > "$2/$1.log" 2>&1; true' _ {} "$WORK/runs")
    echo "(each project after one run of its run.sh on the CPU: RAN=1)"
fi
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
tar xzf "$HERE/logs-h200-8.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-9.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-10.tar.gz" -C "$WORK/h200"
# batches 11-14: the same runs on an H100 (the only card lent those days; torch 2.11, CUDA 13)
tar xzf "$HERE/logs-h100-11.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h100-12.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h100-13.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h100-14.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h200-15.tar.gz" -C "$WORK/h200"
# batch 16 on an H100 (the card lent that day; torch 2.11)
tar xzf "$HERE/logs-h100-16.tar.gz" -C "$WORK/h200"
# batch 17 on an H100 (the card lent that day; torch 2.11)
tar xzf "$HERE/logs-h100-17.tar.gz" -C "$WORK/h200"
# batches 18 and 19 on an H100 (the card lent that day; torch 2.11), made in the fifty-third stop
tar xzf "$HERE/logs-h100-18.tar.gz" -C "$WORK/h200"
tar xzf "$HERE/logs-h100-19.tar.gz" -C "$WORK/h200"
# batch 20 on an H200 (torch 2.11), late in the fifty-fourth stop
tar xzf "$HERE/logs-h200-20.tar.gz" -C "$WORK/h200"
# batch 21 on an H200 (torch 2.11), early in the fifty-fifth stop
tar xzf "$HERE/logs-h200-21.tar.gz" -C "$WORK/h200"
# batch 22 on an H100 (the card lent that day; torch 2.11), late in the fifty-sixth stop
tar xzf "$HERE/logs-h100-22.tar.gz" -C "$WORK/h200"
# batch 23 on an H100 (the card lent that day; torch 2.11), early in the fifty-seventh stop
tar xzf "$HERE/logs-h100-23.tar.gz" -C "$WORK/h200"
# batch 24 on an H100 (the card lent that day; torch 2.11), in the fifty-eighth stop
tar xzf "$HERE/logs-h100-24.tar.gz" -C "$WORK/h200"
# batch 25 on an H100 (the card lent that day; torch 2.11), early in the fifty-ninth stop
tar xzf "$HERE/logs-h100-25.tar.gz" -C "$WORK/h200"
for f in "$HERE"/logs-cpu/*_cpu.log; do
    id=$(basename "$f" _cpu.log)
    ln -s "$f" "$WORK/cpu/${id}_sync.log"
done
for half in ${HALVES:-tune seen tune2 unseen2 tune3 unseen3 tune4 unseen4 tune5 unseen5 tune6 unseen6 tune7 unseen7 tune8 unseen8 tune9 seen9 tune10 unseen10 tune11 unseen11 tune12 unseen12 tune13 unseen13 tune14 unseen14 tune15 unseen15 tune16 unseen16 tune17 unseen17 tune18 unseen18 tune19 unseen19 tune20 unseen20 tune21 unseen21 tune22 unseen22 tune23 unseen23 tune24 unseen24 tune25 unseen25}; do
    echo "== $half"
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/h200" async ${V:+-v} | tail -n ${V:+100}${V:-1}
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/h200" sync ${V:+-v} | tail -n ${V:+100}${V:-1}
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/cpu" sync ${V:+-v} | tail -n ${V:+100}${V:-1} | sed 's/^sync/cpu/'
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/cpu" lint ${V:+-v} | tail -n ${V:+100}${V:-1}
done
