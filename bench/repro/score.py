#!/usr/bin/env python3
"""Score `cudasleuth repro` reports of the value-provenance corpus (bench/repro/corpus.sh).

  bench/repro/score.py REPORTS_DIR [HALF...]     # totals per half of bench/corpus/split.txt
  V=1 bench/repro/score.py REPORTS_DIR tune      # and each project's outcome (never for the unseen halves)

Per half: caught (a witness), culprit first and confirmed, a wrong line confirmed, culprit among
the suspects at all; controls: quiet (no witness, nothing confirmed). The culprit is the
project's truth.json `culprit` or one of its `also_acceptable`."""

import json
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "corpus")


def truths():
    out = {}
    for t in sorted(f for f in os.listdir(CORPUS) if f.startswith("projects") and f.endswith(".tar.gz")):
        with tarfile.open(os.path.join(CORPUS, t)) as tf:
            for m in tf.getmembers():
                if m.name.endswith("/truth.json") and m.name.count("/") == 2:
                    name = m.name.split("/")[1]
                    out[name] = json.load(tf.extractfile(m))
    return out


def main():
    rdir = sys.argv[1]
    halves = sys.argv[2:] or ["tune", "seen", "tune2", "unseen2"]
    split = dict(line.split() for line in open(os.path.join(CORPUS, "split.txt")) if line.strip())
    tr = truths()
    verbose = os.environ.get("V") == "1"
    for half in halves:
        names = sorted(n for n, h in split.items() if h == half)
        stats = {"buggy": 0, "caught": 0, "first_confirmed": 0, "wrong_confirmed": 0, "any": 0, "first": 0,
                 "controls": 0, "quiet": 0, "missing": 0, "seconds": []}
        for n in names:
            t = tr.get(n, {})
            path = os.path.join(rdir, n[:3] + ".json")
            try:
                r = json.load(open(path))
            except (OSError, ValueError):
                stats["missing"] += 1
                if verbose and not half.startswith("unseen"):
                    print("  %s: no report" % n)
                continue
            rc = os.path.join(rdir, n[:3] + ".rc")
            if os.path.exists(rc):
                parts = open(rc).read().split()
                if len(parts) > 1:
                    stats["seconds"].append(float(parts[1]))
            sus = r.get("suspects") or []
            places = ["%s:%s" % (s["file"], s["line"]) for s in sus]
            conf = [p for p, s in zip(places, sus) if s.get("confirmed")]
            if not t.get("culprit"):
                stats["controls"] += 1
                q = r.get("witness") is None and not conf
                stats["quiet"] += q
                if verbose and not half.startswith("unseen"):
                    print("  %s control: %s" % (n, "quiet" if q else "witness/confirmed %s" % conf))
                continue
            ok = {t["culprit"]} | set(t.get("also_acceptable") or [])
            stats["buggy"] += 1
            caught = r.get("witness") is not None
            stats["caught"] += caught
            first_ok = bool(places) and places[0] in ok
            stats["first"] += first_ok
            stats["first_confirmed"] += first_ok and bool(sus[0].get("confirmed"))
            wrong = [c for c in conf if c not in ok]
            stats["wrong_confirmed"] += bool(wrong)
            stats["any"] += any(p in ok for p in places)
            if verbose and not half.startswith("unseen"):
                born = ((r.get("witness") or {}).get("born") or {})
                vb = ((born.get("value_chain") or {}).get("born") or {})
                print("  %s: caught=%s first=%s confirmed=%s wrong=%s culprit=%s top3=%s born=%s:%s(%s) same=%s" % (
                    n, caught, first_ok, conf[:2], wrong[:2], t["culprit"], places[:3],
                    os.path.basename(vb.get("file") or "?"), vb.get("line"), vb.get("kind"), born.get("same_witness")))
        secs = stats.pop("seconds")
        med = sorted(secs)[len(secs) // 2] if secs else None
        print("%-8s buggy %d: caught %d, culprit first %d (confirmed %d), wrong line confirmed in %d, culprit among suspects %d;"
              " controls quiet %d/%d; missing %d; median %s s" % (
                  half, stats["buggy"], stats["caught"], stats["first"], stats["first_confirmed"], stats["wrong_confirmed"],
                  stats["any"], stats["quiet"], stats["controls"], stats["missing"], med))


if __name__ == "__main__":
    main()
