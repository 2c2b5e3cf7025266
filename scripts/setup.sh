#!/usr/bin/env bash
# Sets up a development environment from a fresh clone: system packages (node to build the front end; with
# DLD_SETUP_TESTS=1, as scripts/test.sh sets it, also Debian chromium for the browser tests and OpenSSH for the
# remote-target tests: the main job needs neither), a virtualenv in .venv with the package installed editable (which builds
# the front end with npm: anywidget bundles + the prebuilt JupyterLab extension), and the extension linked.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
if [ "${DLD_SETUP_TESTS:-0}" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
  command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
  command -v ssh >/dev/null 2>&1 || need_apt+=(openssh-client)
fi
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install these Debian packages first (needs root): ${need_apt[*]}" >&2
    exit 1
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
# Build tools first, then the package without build isolation: one JupyterLab, not a second one in a build env.
python -m pip install -q "hatchling>=1.27" "editables>=0.5" "hatch-jupyter-builder>=0.10,<0.11" "jupyterlab>=4.6,<4.7" \
  "jupyter-builder>=1.3,<2"
# npm ci installs exactly the lock and never rewrites it (`npm install` did: a setup left js/package-lock.json
# modified). The lock records every platform's optional binaries (rspack, rollup, emnapi), as npm 11 writes it,
# so ci finds them all. Skipped when node_modules already holds this lock's install (npm's own record is newer).
if [ ! -f js/node_modules/.package-lock.json ] || [ js/package-lock.json -nt js/node_modules/.package-lock.json ] \
  || [ js/package.json -nt js/node_modules/.package-lock.json ]; then
  (cd js && npm ci --no-audit --no-fund --loglevel=error)
fi
# The front end is built right after, every time: skip the build hook's own (it would build twice).
# [cpu]: the CPU build of ONNX Runtime (no runtime is a base requirement: see README "Install").
SKIP_JUPYTER_BUILDER=1 python -m pip install -q --no-build-isolation -e ".[cpu,test]"
(cd js && npm run --silent build)
jupyter labextension develop --overwrite . >/dev/null
echo "setup: done ($(python --version), JupyterLab $(jupyter lab --version), node $(node --version))"
