#!/usr/bin/env bash
# Makes the benchmark peers' virtual environment (default bench/venv-peers,
# or $1): PyPI's PyTorch 2.x (torch.compile is a peer; the wheel pulls its
# CUDA libraries, a few GB), numpy, and the tensorstitch package built from
# this checkout, so the benchmarks run both PyTorch versions' peers and the
# package under PyTorch 2.x. Never used by the tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/bench/venv-peers}"
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install -q --disable-pip-version-check torch numpy
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  --config-settings=build-dir="$root/build/python-build-peers" "$root"
"$venv/bin/python" -c 'import torch, tensorstitch; print("torch", torch.__version__, "tensorstitch", tensorstitch.__version__)'
