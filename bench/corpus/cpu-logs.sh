#!/usr/bin/env bash
# Real CPU runs of the corpus's buggy projects (how logs-cpu/ was made): each project's run.sh
# with `python` and `python3` meaning $PY (a Python with torch, transformers, lightning, pandas, sklearn),
# two at a time, into $DEST/<pNN>_cpu.log.
#   PY=/path/to/python DEST=/tmp/cpu-logs bench/corpus/cpu-logs.sh
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PY:?PY: the Python to run the projects with}"
DEST=${DEST:-/tmp/cudasleuth-cpu-logs}
W=/tmp/corpus-cpu-runs; rm -rf "$W"; mkdir -p "$W" "$DEST" /tmp/cbin
printf '#!/bin/sh\nexec %s "$@"\n' "$PY" > /tmp/cbin/python && chmod +x /tmp/cbin/python
cp /tmp/cbin/python /tmp/cbin/python3
tar xzf "$HERE/${TAR:-projects.tar.gz}" -C "$W"
export PATH=/tmp/cbin:$PATH DEST W
for p in "$W"/projects/*/; do grep -q '"culprit": null' "$p/truth.json" || basename "$p"; done |
    xargs -P 2 -I{} bash -c 'n={}; cd "$W/projects/$n" && timeout 240 bash run.sh > "$DEST/${n:0:3}_cpu.log" 2>&1'
