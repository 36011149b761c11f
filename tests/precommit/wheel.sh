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
if ! grep -q "^version = \"$version\"" "$repo/pre-commit-mirror/pyproject.toml" ||
  ! grep -q "\"cudasleuth==$version\"" "$repo/pre-commit-mirror/pyproject.toml"; then
  echo "FAIL: pre-commit-mirror/pyproject.toml does not pin cudasleuth $version"; exit 1
fi

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

# shellcheck source=tests/precommit/user-project.sh
. "$repo/tests/precommit/user-project.sh"
user_project "$work/proj" "$mirror" "$rev"
cp "$repo/tests/precommit/project/model.py" model.py
cp "$repo/tests/precommit/project/data/dataset.py" data/dataset.py
git add -A

# no cargo or rustup on PATH: the hook must not compile anything
clean_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e cargo -e rustup | paste -sd:)
links=$(dirname "$wheel")
export PATH="$work/venv/bin:$clean_path" PRE_COMMIT_HOME="$work/pre-commit-home" PIP_FIND_LINKS="$links"
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
