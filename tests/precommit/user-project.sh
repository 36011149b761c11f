# shellcheck shell=bash
# Sourced by the hook tests: `user_project DIR HOOK_REPO REV` makes DIR a new git repository
# (with data/) whose .pre-commit-config.yaml uses the `cudasleuth` hook of HOOK_REPO at REV, and
# enters it.
user_project() {
  mkdir -p "$1/data"
  cd "$1" || return
  git init -q
  git config user.email ci@example.invalid
  git config user.name ci
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $2
    rev: $3
    hooks:
      - id: cudasleuth
YAML
}
