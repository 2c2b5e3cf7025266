#!/usr/bin/env bash
# README command 1: set everything up, then start JupyterLab on the quickstart notebook (the designer on the bundled
# ResNet-8, profiled with ONNX Runtime on the CPU), run from a git-ignored copy in sandbox/. Extra arguments go to
# `jupyter lab` (e.g. --ip=0.0.0.0).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
root=()
if [ "$(id -u)" = 0 ]; then root=(--allow-root); fi  # containers run as root; jupyter refuses without the flag
# The notebooks run from sandbox/ (git-ignored; copied once, then yours): running them writes outputs, a model copy
# and reports beside them, which left notebooks/ modified and the git tree dirty.
mkdir -p sandbox
for notebook in notebooks/*.ipynb; do
  [ -e "sandbox/${notebook##*/}" ] || cp "$notebook" sandbox/
done
# The quickstart is the default URL, not a file argument: a file argument only reaches the browser jupyter opens
# itself, so with --no-browser the printed URL opened the Launcher instead.
exec jupyter lab --LabApp.default_url=/lab/tree/sandbox/01_quickstart.ipynb --ServerApp.root_dir="$PWD" \
  "${root[@]}" "$@"
