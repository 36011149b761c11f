#!/usr/bin/env bash
# The pre-commit hook that installs the wheel (pre-commit-mirror/), as a new user meets it:
# the mirror as a repository of its own, its `cudasleuth` dependency resolved to WHEEL (through
# PIP_FIND_LINKS, as PyPI would serve it), and no cargo on PATH, so a compile would fail. A
# label shift is blocked with the rule on its line; a clean commit passes.
# Usage: tests/precommit/wheel.sh WHEEL   (a cudasleuth wheel, e.g. from `maturin build`)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$wheel" ] || { echo "no wheel at $1"; exit 2; }

# the mirror's pin and version follow the crate's version
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -1)
grep -q "^version = \"$version\"" "$repo/pre-commit-mirror/pyproject.toml" &&
  grep -q "\"cudasleuth==$version\"" "$repo/pre-commit-mirror/pyproject.toml" ||
  { echo "FAIL: pre-commit-mirror/pyproject.toml does not pin cudasleuth $version"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q pre-commit

mirror="$work/mirror"
cp -r "$repo/pre-commit-mirror" "$mirror"
git -C "$mirror" init -q
git -C "$mirror" add -A
git -C "$mirror" -c user.email=ci@example.invalid -c user.name=ci commit -qm mirror
rev=$(git -C "$mirror" rev-parse HEAD)

proj="$work/proj"
mkdir -p "$proj"
cd "$proj"
git init -q
git config user.email ci@example.invalid
git config user.name ci
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $mirror
    rev: $rev
    hooks:
      - id: cudasleuth
YAML
mkdir -p data
cat > model.py <<'PY'
import torch.nn as nn

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
PY
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
git add -A

# no cargo or rustup on PATH: the hook must not compile anything
clean_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e cargo -e rustup | paste -sd:)
export PATH="$work/venv/bin:$clean_path" PRE_COMMIT_HOME="$work/pre-commit-home" PIP_FIND_LINKS="$(dirname "$wheel")"
if command -v cargo >/dev/null; then echo "note: cargo is still on PATH at $(command -v cargo)"; fi
if pre-commit run --all-files > "$work/blocked.txt" 2>&1; then
  cat "$work/blocked.txt"; echo "FAIL: the label shift went through"; exit 1
fi
grep -q "data/dataset.py:15" "$work/blocked.txt" || { cat "$work/blocked.txt"; echo "FAIL: no diagnostic on the shifting line"; exit 1; }
grep -q "CS10" "$work/blocked.txt" || { cat "$work/blocked.txt"; echo "FAIL: rule not named"; exit 1; }
# the hook's environment holds the wheel's command
ls "$PRE_COMMIT_HOME"/repo*/py_env-*/bin/cudasleuth >/dev/null || { echo "FAIL: the hook's environment has no cudasleuth"; exit 1; }

sed -i 's/            y = y + 1/            x = x.flip(0)/' data/dataset.py
pre-commit run --all-files > "$work/clean.txt" 2>&1 || { cat "$work/clean.txt"; echo "FAIL: the clean file was blocked"; exit 1; }
echo "pre-commit (wheel): installed from $(basename "$wheel") without compiling; the label shift was blocked, the clean file passed"
