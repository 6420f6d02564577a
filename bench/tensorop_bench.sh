#!/usr/bin/env bash
# Builds and runs the tensor operation backend benchmarks and prints one
# table (GFLOPS, fraction of the measured FMA peak, ratio to the peers).
#
#   bench/tensorop_bench.sh [BUILD_DIR] [REPETITIONS]
#
# Peers: oneDNN, LIBXSMM, OpenBLAS (C++), torch.einsum (Debian python3-torch
# under /usr/bin/python3). Missing peer packages are installed with apt-get
# when running as root; a peer that is still missing is left out.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$repo/build-bench}"
reps="${2:-5}"
out="$build/tensorop-bench"

if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  missing=()
  for p in libdnnl-dev libxsmm-dev libopenblas-dev libbenchmark-dev python3-torch libxbyak-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    apt-get install -y "${missing[@]}" || echo "warning: could not install ${missing[*]}" >&2
  fi
fi

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTITCH_BUILD_BENCH=ON >/dev/null
ninja -C "$build" -j2 tensorop_bench
mkdir -p "$out"
bench_bin="$(find "$build" -name tensorop_bench -type f -perm -u+x | head -1)"

echo "running tensorop_bench (repetitions $reps) ..." >&2
"$bench_bin" --reps "$reps" --benchmark_format=console \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json >"$out/bench.txt"
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "running torch.einsum ..." >&2
  /usr/bin/python3 "$repo/bench/torch_einsum.py" "$reps" >"$out/torch.jsonl"
else
  echo "torch not available; skipping that peer" >&2
  : >"$out/torch.jsonl"
fi
/usr/bin/python3 "$repo/bench/tensorop_report.py" "$out/bench.json" "$out/torch.jsonl" | tee "$out/table.txt"
