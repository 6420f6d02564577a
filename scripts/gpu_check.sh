#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the examples and the differential suite
# with --device cuda against PyTorch, then the GPU benchmark
# (bench/gpu/run_gpu.py). It runs from a build folder made on another
# machine, without CUDA:
#
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTITCH_BUILD_TESTS=OFF
#   cmake --build build-gpu --target stitch
#
# so the GPU machine needs none of the project's packages: python3 with
# torch and numpy, a CUDA driver, NVRTC and cuBLAS ($STITCH_NVRTC,
# $STITCH_CUBLAS, else the CUDA toolkit's, else a Python package's). Logs
# go to $GPU_CHECK_LOGS (default a temporary folder; with $OUT set, also as
# $OUT/gpu_check_logs.tgz); exits 1 when anything failed.
set -uo pipefail
PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${STITCH_BUILD:-$ROOT/build-gpu}"
STITCH="$BUILD/tools/stitch/stitch"
LOGS="${GPU_CHECK_LOGS:-$(mktemp -d)}"
mkdir -p "$LOGS"
cd "$ROOT"

# The first of the CUDA toolkit's or a Python package's copies of a library.
find_cuda_library() {
  local lib
  for lib in /usr/local/cuda/lib64/$1.so /usr/local/cuda/lib64/$1.so.* \
             $("$PYTHON" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null | \
               xargs -I{} sh -c "ls {}/nvidia/*/lib/$1.so* 2>/dev/null"); do
    if [ -f "$lib" ]; then echo "$lib"; return; fi
  done
}
[ -n "${STITCH_NVRTC:-}" ] || STITCH_NVRTC="$(find_cuda_library libnvrtc)"
[ -n "${STITCH_CUBLAS:-}" ] || STITCH_CUBLAS="$(find_cuda_library libcublas)"
export STITCH_NVRTC STITCH_CUBLAS
export STITCH_CACHE_DIR="${STITCH_CACHE_DIR:-$(mktemp -d)}"
echo "== $(nvidia-smi -L 2>/dev/null | head -1); NVRTC ${STITCH_NVRTC:-from the dynamic loader}; cuBLAS ${STITCH_CUBLAS:-from the dynamic loader}; logs in $LOGS"
"$STITCH" --version || { echo "no runnable $STITCH"; exit 1; }

echo "== smoke: softmax on the GPU, then an LSTM whose third run replays the CUDA graph its second recorded"
"$STITCH" run examples/softmax.py --input x=f32[64,256] --device cuda --check --json || exit 1
"$STITCH" run examples/lstm.py --input x=f32[8,4,32] --input w_ih=f32[2,128,32] --input w_hh=f32[2,128,32] \
  --input b=f32[2,128] --input state_h=f32[2,4,32] --input state_c=f32[2,4,32] --device cuda --bench 2 --check --json \
  || exit 1
echo

failed=0
start=$SECONDS
echo "== examples, --device cuda"
"$PYTHON" tests/examples/check_examples.py --stitch "$STITCH" --examples examples --mode compiled --device cuda \
  > "$LOGS/examples.log" 2>&1 || failed=1
grep -E "^(ok|FAIL)|error" "$LOGS/examples.log"
echo "   ($((SECONDS - start)) s)"

echo "== differential suite, --mode compiled --device cuda (families in parallel)"
start=$SECONDS
"$PYTHON" tests/differential/run_differential.py --list | cut -d. -f1 | sort -u | \
  xargs -P "$(nproc)" -I{} sh -c "'$PYTHON' tests/differential/run_differential.py --stitch '$STITCH' \
    --mode compiled --device cuda --family {} > '$LOGS/differential_{}.log' 2>&1"
cat "$LOGS"/differential_*.log | grep -E "^FAIL" | head -40
passed=$(cat "$LOGS"/differential_*.log | grep -c "^PASS")
fails=$(cat "$LOGS"/differential_*.log | grep -c "^FAIL")
echo "   $passed passed, $fails failed ($((SECONDS - start)) s)"
[ "$fails" -eq 0 ] && [ "$passed" -gt 0 ] || failed=1

echo "== GPU benchmark"
start=$SECONDS
"$PYTHON" bench/gpu/run_gpu.py --stitch "$STITCH" --reps 20 ${GPU_BENCH_ARGS:-} 2>&1 | tee "$LOGS/bench.log"
echo "   ($((SECONDS - start)) s)"
if [ -n "${OUT:-}" ]; then tar czf "$OUT/gpu_check_logs.tgz" -C "$LOGS" .; fi
exit $failed
