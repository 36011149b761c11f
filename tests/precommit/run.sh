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

proj="$work/proj"
mkdir -p "$proj/data"
cd "$proj"
git init -q
git config user.email ci@example.invalid
git config user.name ci
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $src
    rev: $rev
    hooks:
      - id: cudasleuth
YAML
cat > model.py <<'PY'
import torch.nn as nn

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
PY
git add -A && git commit -qm "model" --no-verify
pre-commit install > /dev/null

cat > data/dataset.py <<'PY'
import torch
from torch.utils.data import Dataset


class Pairs(Dataset):
    def __init__(self, xs, ys):
        self.xs, self.ys = xs, ys

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        x, y = self.xs[i], self.ys[i]
        if torch.rand(1) < 0.1:
            y = y + 1
        return x, y
PY
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
