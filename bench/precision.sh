#!/usr/bin/env bash
# Precision of `cudasleuth lint` on large real PyTorch code bases.
#
# Downloads pinned releases of a few big PyTorch projects from PyPI (wheels; fairseq as its
# sdist), unpacks each into its own lint root, runs `cudasleuth lint --no-cache --preview
# --format json` there under /usr/bin/time -v, and prints per package: Python lines, findings
# (default rules and with preview rules), findings per rule, findings per 100k lines, wall and
# CPU time, peak RSS. Every finding is then looked up in bench/precision-verdicts.tsv (the
# hand-made verdicts, see bench/PRECISION.md): real / false positive / not yet judged.
#
#   bench/precision.sh                     # everything, into /tmp/precision
#   SKIP_BUILD=1 bench/precision.sh        # use target/release/cudasleuth as built
#   WORK=/data/prec bench/precision.sh     # another work directory (outside the repo!)
#   PACKAGES="timm==1.0.31 mmdet==3.3.0" bench/precision.sh
#   LATEST=1 bench/precision.sh            # newest releases (verdicts will not all match)
#
# Needs: cargo, python3 with pip, unzip, tar, GNU time (/usr/bin/time). Network for pip only.
# Outputs under $WORK: wheels/, src/<name>/, out/<name>.{json,time}, findings.tsv, results.md.
# Exit status: 0 when every finding has a verdict, 3 when some are unjudged, other: failure.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/precision}
VERDICTS=${VERDICTS:-$REPO/bench/precision-verdicts.tsv}
BIN=${BIN:-$REPO/target/release/cudasleuth}
DEFAULT_PACKAGES="timm==1.0.31 torchvision==0.29.2 transformers==5.24.0 lightning==2.6.6 fairseq==0.12.2 mmdet==3.3.0 ultralytics==8.4.190"
PACKAGES=${PACKAGES:-$DEFAULT_PACKAGES}
if [[ -n "${LATEST:-}" ]]; then PACKAGES=$(for p in $PACKAGES; do printf '%s ' "${p%%==*}"; done); fi
# fairseq's only wheels are CPython-version specific (and none for >= 3.11): always take the
# sdist so that every Python sees the same files.
SDIST_ONLY=${SDIST_ONLY:-fairseq}

case "$WORK" in "$REPO"|"$REPO"/*) echo "WORK must be outside the repository ($REPO)" >&2; exit 2;; esac
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time) is required (apt-get install time)" >&2; exit 2; }

if [[ -z "${SKIP_BUILD:-}" ]]; then
    (cd "$REPO" && cargo build --release --quiet)
fi
[[ -x "$BIN" ]] || { echo "no binary at $BIN" >&2; exit 2; }

mkdir -p "$WORK/wheels" "$WORK/src" "$WORK/out"

# ---- download -------------------------------------------------------------------------
archive_of() {  # archive_of NAME [VERSION]: the downloaded wheel or sdist (newest if no VERSION)
    local norm; norm=$(echo "$1" | tr 'A-Z-' 'a-z_')
    ls "$WORK/wheels" 2>/dev/null | while read -r f; do
        local n v; n=$(echo "${f%%-[0-9]*}" | tr 'A-Z-' 'a-z_')
        v=${f#*-}; v=${v%%-*}; v=${v%.tar.gz}; v=${v%.zip}
        if [[ "$n" == "$norm" && ( -z "${2:-}" || "$v" == "$2" ) ]]; then echo "$v $WORK/wheels/$f"; fi
    done | sort -V | tail -n1 | cut -d' ' -f2-
}
for spec in $PACKAGES; do
    name=${spec%%==*}
    want=${spec#*==}; [[ "$want" == "$spec" ]] && want=""
    have=$(archive_of "$name" "$want")
    if [[ -n "$have" && -z "${LATEST:-}" ]]; then continue; fi
    extra=()
    for s in $SDIST_ONLY; do [[ "$s" == "$name" ]] && extra=(--no-binary "$name"); done
    echo "downloading $spec" >&2
    pip download --quiet --no-deps "${extra[@]}" -d "$WORK/wheels" "$spec" >&2
done

# ---- unpack ---------------------------------------------------------------------------
declare -A VERSION
NAMES=()
for spec in $PACKAGES; do
    name=${spec%%==*}
    want=${spec#*==}; [[ "$want" == "$spec" ]] && want=""
    archive=$(archive_of "$name" "$want")
    [[ -n "$archive" ]] || { echo "no archive for $name" >&2; exit 2; }
    base=$(basename "$archive")
    ver=${base#*-}; ver=${ver%%-*}; ver=${ver%.tar.gz}; ver=${ver%.zip}
    VERSION[$name]=$ver
    NAMES+=("$name")
    dir="$WORK/src/$name"
    stamp="$dir/.unpacked-from"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$base" ]]; then continue; fi
    rm -rf "$dir"; mkdir -p "$dir"
    case "$base" in
        *.whl|*.zip) unzip -q "$archive" -d "$dir" ;;
        *.tar.gz)    tar xzf "$archive" -C "$dir" --strip-components=1 ;;
        *) echo "unknown archive $base" >&2; exit 2 ;;
    esac
    # Each package is its own lint root: without a pyproject.toml the root walk would climb
    # to $WORK/src or above. An sdist's own pyproject.toml is kept (it must not configure
    # cudasleuth, checked below).
    [[ -f "$dir/pyproject.toml" ]] || printf '[project]\nname = "x"\n' > "$dir/pyproject.toml"
    echo "$base" > "$stamp"
done

# ---- lint -----------------------------------------------------------------------------
for name in "${NAMES[@]}"; do
    dir="$WORK/src/$name"
    if grep -q '^\[tool\.cudasleuth' "$dir/pyproject.toml"; then
        echo "$dir/pyproject.toml configures cudasleuth: results would not be comparable" >&2; exit 2
    fi
    echo "linting $name" >&2
    set +e
    (cd "$dir" && /usr/bin/time -v "$BIN" lint --no-cache --preview --format json \
        > "$WORK/out/$name.json" 2> "$WORK/out/$name.time")
    rc=$?
    set -e
    if [[ $rc -gt 1 ]]; then
        echo "lint failed in $dir (exit $rc):" >&2; cat "$WORK/out/$name.time" >&2; exit 2
    fi
    find "$dir" -name '*.py' -print0 | xargs -0 cat | wc -l > "$WORK/out/$name.lines"
done

# ---- report ---------------------------------------------------------------------------
export WORK VERDICTS
export NAMES_LIST="${NAMES[*]}"
export VERSIONS_LIST=$(for n in "${NAMES[@]}"; do printf '%s=%s ' "$n" "${VERSION[$n]}"; done)
# Which rules are in preview (run only with --preview): read from the rule registry.
export PREVIEW_RULES=$(python3 - "$REPO/src/rules/mod.rs" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
for block in re.findall(r"RuleInfo \{(.*?)\}", src, re.S):
    code = re.search(r'code: "(\w+)"', block)
    if code and re.search(r"preview: true", block):
        print(code.group(1))
PY
)
python3 - <<'PY'
import json, os, re, sys, collections

work = os.environ["WORK"]
names = os.environ["NAMES_LIST"].split()
versions = dict(kv.split("=", 1) for kv in os.environ["VERSIONS_LIST"].split())
preview = set(os.environ["PREVIEW_RULES"].split())

verdicts = {}
if os.path.exists(os.environ["VERDICTS"]):
    for line in open(os.environ["VERDICTS"]):
        if line.startswith("#") or not line.strip():
            continue
        pkg, rule, loc, verdict, reason = line.rstrip("\n").split("\t", 4)
        verdicts[(pkg, rule, loc)] = (verdict, reason)

def timing(path):
    t = open(path).read()
    def grab(pat):
        m = re.search(pat, t)
        return m.group(1) if m else None
    wall = grab(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)")
    parts = [float(p) for p in wall.split(":")]
    secs = 0.0
    for p in parts:
        secs = secs * 60 + p
    cpu = float(grab(r"User time \(seconds\): (\S+)")) + float(grab(r"System time \(seconds\): (\S+)"))
    rss = int(grab(r"Maximum resident set size \(kbytes\): (\d+)")) / 1024
    return secs, cpu, rss

rows, findings = [], []
tot = collections.Counter()
for n in names:
    data = json.load(open(f"{work}/out/{n}.json"))
    lines = int(open(f"{work}/out/{n}.lines").read().split()[0])
    wall, cpu, rss = timing(f"{work}/out/{n}.time")
    diags = data["diagnostics"]
    by_rule = collections.Counter(d["rule"] for d in diags)
    real = fp = fp_default = unjudged = 0
    src_cache = {}
    for d in diags:
        loc = f"{d['file']}:{d['line']}"
        v = verdicts.get((n, d["rule"], loc))
        verdict = v[0] if v else "UNJUDGED"
        real += verdict == "real"; fp += verdict == "FP"; unjudged += v is None
        fp_default += verdict == "FP" and d["rule"] not in preview
        path = os.path.join(work, "src", n, d["file"])
        if path not in src_cache:
            src_cache[path] = open(path, encoding="utf-8", errors="replace").read().split("\n")
        text = src_cache[path][d["line"] - 1].strip()
        findings.append((n, d["rule"], loc, verdict, text, v[1] if v else ""))
    default = sum(c for r, c in by_rule.items() if r not in preview)
    row = dict(pkg=n, ver=versions[n], lines=lines, default=default, all=len(diags),
               rules=", ".join(f"{r}:{c}" for r, c in sorted(by_rule.items())) or "-",
               real=real, fp=fp, fp_default=fp_default, unjudged=unjudged, wall=wall, cpu=cpu, rss=rss,
               warnings=len(data["warnings"]))
    rows.append(row)
    for k in ("lines", "default", "all", "real", "fp", "fp_default", "unjudged", "wall", "cpu", "warnings"):
        tot[k] += row[k]
    tot["rss"] = max(tot["rss"], rss)

def per100k(x, lines):
    return f"{100000 * x / lines:.1f}" if lines else "-"

out = []
out.append("| package | version | Python lines | findings (default rules) | findings (+preview) | by rule | real | false positives | unjudged | findings / 100k lines | FP / 100k lines | FP / 100k lines (default rules) | lint wall s | lint CPU s | max RSS MiB |")
out.append("|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for r in rows:
    out.append(f"| {r['pkg']} | {r['ver']} | {r['lines']:,} | {r['default']} | {r['all']} | {r['rules']} | {r['real']} | {r['fp']} | {r['unjudged']} | "
               f"{per100k(r['all'], r['lines'])} | {per100k(r['fp'], r['lines'])} | {per100k(r['fp_default'], r['lines'])} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['rss']:.0f} |")
out.append(f"| **total** | | {tot['lines']:,} | {tot['default']} | {tot['all']} | | {tot['real']} | {tot['fp']} | {tot['unjudged']} | "
           f"{per100k(tot['all'], tot['lines'])} | {per100k(tot['fp'], tot['lines'])} | {per100k(tot['fp_default'], tot['lines'])} | {tot['wall']:.2f} | {tot['cpu']:.2f} | {tot['rss']:.0f} |")
if tot["real"] + tot["fp"]:
    out.append("")
    out.append(f"precision on judged findings: {tot['real']}/{tot['real'] + tot['fp']} = {tot['real'] / (tot['real'] + tot['fp']):.1%}; "
               f"lint warnings (unreadable files etc.): {tot['warnings']}")
table = "\n".join(out)
print(table)

with open(f"{work}/findings.tsv", "w") as f:
    f.write("# package\trule\tlocation\tverdict\tsource line\treason\n")
    for x in findings:
        f.write("\t".join(x) + "\n")
with open(f"{work}/results.md", "w") as f:
    f.write(table + "\n")
un = [x for x in findings if x[3] == "UNJUDGED"]
if un:
    print(f"\n{len(un)} findings have no verdict in {os.environ['VERDICTS']} (see {work}/findings.tsv):", file=sys.stderr)
    for x in un[:40]:
        print(f"  {x[0]}\t{x[1]}\t{x[2]}\t{x[4]}", file=sys.stderr)
    sys.exit(3)
PY
