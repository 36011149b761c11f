#!/usr/bin/env bash
# Scores `explain --project` and `lint` on the value-provenance corpus (bench/corpus/README.md).
#
#   bench/corpus/score.sh [BIN]      # default: target/release/cudasleuth
#   V=1 bench/corpus/score.sh        # list the misses (do not, on a half you keep unseen)
#   HALVES=tune bench/corpus/score.sh
#
# Unpacks projects.tar.gz into $WORK (default /tmp/cudasleuth-corpus), lays each half out as
# score_projects.py wants it (DIR/<pNN_name>/ and LOGS/<pNN>_{async,sync}.log), and prints
# the figures of the three modes for each half:
#   sync:  the CPU log of a real run of the project (logs-cpu/), the traceback at the op;
#   async: a proxy: the real H200 log of the same kernel assert from fixtures/torch-2.11-h200
#          (proxy-logs.txt), whose traceback names none of the project's files;
#   lint:  no log, lint --no-cache on a copy of each project.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$REPO/target/release/cudasleuth}
WORK=${WORK:-/tmp/cudasleuth-corpus}
SCORE=${SCORE:-$REPO/../shared/tools/score_projects.py}
HERE=$REPO/bench/corpus
rm -rf "$WORK" && mkdir -p "$WORK/all" "$WORK/sync" "$WORK/async"
tar xzf "$HERE/projects.tar.gz" -C "$WORK/all"
while read -r name half; do
    mkdir -p "$WORK/$half"
    ln -s "$WORK/all/projects/$name" "$WORK/$half/$name"
done < "$HERE/split.txt"
for f in "$HERE"/logs-cpu/*_cpu.log; do
    id=$(basename "$f" _cpu.log)
    ln -s "$f" "$WORK/sync/${id}_sync.log"
done
while read -r log fixture; do
    ln -s "$REPO/fixtures/torch-2.11-h200/$fixture" "$WORK/async/$log"
done < "$HERE/proxy-logs.txt"
for half in ${HALVES:-tune unseen}; do
    echo "== $half"
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/sync" sync ${V:+-v} | tail -n ${V:+100}${V:-1}
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/async" async ${V:+-v} | tail -n ${V:+100}${V:-1}
    python3 "$SCORE" "$BIN" "$WORK/$half" "$WORK/sync" lint ${V:+-v} | tail -n ${V:+100}${V:-1}
done
