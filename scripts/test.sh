#!/usr/bin/env bash
# README command 2: set everything up, then run every check and test (lint, types, TypeScript units, pytest
# including the real-browser tests). Exits non-zero on any failure, including "no tests ran".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate

echo "== ruff";       ruff check dld_jupyter tests benchmarks scripts
echo "== mypy";       mypy
echo "== tsc";        (cd js && npx tsc -p tsconfig.json --noEmit)
echo "== vitest";     (cd js && npx vitest run --reporter=dot)
echo "== pytest"
status=0
python -m pytest "$@" || status=$?
if [ "$status" = 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
