#!/usr/bin/env bash
# README command 2: set everything up, then run every check and test (lint, types, TypeScript units, pytest
# including the real-browser tests). Exits non-zero on any failure, including "no tests ran".
set -euo pipefail
cd "$(dirname "$0")/.."
# What git sees before anything runs: setup and the tests must leave the tree as they found it (no rewritten lock
# file, no executed notebook, no screenshot written into docs/).
tree_before=$(git status --porcelain 2>/dev/null || true)
DLD_SETUP_TESTS=1 bash scripts/setup.sh  # the test-only system packages too (chromium, OpenSSH)
. .venv/bin/activate

failed=()
step() {  # run every step even after a failure, so one run shows everything that is wrong
  local name=$1; shift
  echo "== $name"
  "$@" || failed+=("$name")
}
step ruff   ruff check dld_jupyter tests benchmarks scripts
step mypy   mypy
step tsc    bash -c "cd js && npx tsc -p tsconfig.json --noEmit"
step vitest bash -c "cd js && npx vitest run --reporter=dot"
echo "== pytest"
status=0
python -m pytest "$@" || status=$?
if [ "$status" = 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  failed+=(pytest)
elif [ "$status" != 0 ]; then
  failed+=(pytest)
fi
echo "== clean tree"
tree_after=$(git status --porcelain 2>/dev/null || true)
if [ "$tree_after" != "$tree_before" ]; then
  echo "the setup or the tests changed the git tree (regenerate on purpose, e.g. DLD_UPDATE_SCREENSHOTS=1):" >&2
  diff <(echo "$tree_before") <(echo "$tree_after") >&2 || true
  failed+=("clean tree")
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all checks and tests passed"
