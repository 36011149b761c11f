#!/usr/bin/env bash
# The pre-commit hook as a new user meets it: add the hook, commit a Dataset whose
# __getitem__ shifts labels past the head (blocked, with a diagnostic on that line), then a
# clean commit (passes silently). Needs git, python3 and cargo; installs pre-commit in a venv.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q pre-commit
export PATH="$work/venv/bin:$PATH" PRE_COMMIT_HOME="$work/pre-commit-home"

# pre-commit installs hooks from a commit; use the checked-out tree as it is
src="$work/cudasleuth"
git clone -q "$repo" "$src"
if ! git -C "$repo" diff --quiet HEAD -- 2>/dev/null || [ -n "$(git -C "$repo" status --porcelain)" ]; then
  (cd "$repo" && tar --exclude=./target --exclude=./.git --exclude=./fuzz/target -cf - .) | (cd "$src" && tar -xf -)
  git -C "$src" add -A && git -C "$src" -c user.email=ci@example.invalid -c user.name=ci commit -qm "working tree"
fi
rev=$(git -C "$src" rev-parse HEAD)

# shellcheck source=tests/precommit/user-project.sh
. "$repo/tests/precommit/user-project.sh"
user_project "$work/proj" "$src" "$rev"
cp "$repo/tests/precommit/project/model.py" model.py
git add -A && git commit -qm "model" --no-verify
pre-commit install > /dev/null

cp "$repo/tests/precommit/project/data/dataset.py" data/dataset.py
git add data/dataset.py
if git commit -qm "dataset with a label shift" > "$work/blocked.txt" 2>&1; then
  cat "$work/blocked.txt"; echo "FAIL: the commit with a label shift went through"; exit 1
fi
grep -q "data/dataset.py:15" "$work/blocked.txt" || { cat "$work/blocked.txt"; echo "FAIL: no diagnostic on the shifting line"; exit 1; }
grep -q "CS101" "$work/blocked.txt" || { cat "$work/blocked.txt"; echo "FAIL: rule not named"; exit 1; }

sed -i 's/            y = y + 1/            x = x.flip(0)/' data/dataset.py
git add data/dataset.py
git commit -qm "dataset, clean" > "$work/clean.txt" 2>&1 || { cat "$work/clean.txt"; echo "FAIL: the clean commit was blocked"; exit 1; }
if grep -q "CS1" "$work/clean.txt"; then cat "$work/clean.txt"; echo "FAIL: the clean commit printed findings"; exit 1; fi
echo "pre-commit: the label shift was blocked, the clean commit passed"
