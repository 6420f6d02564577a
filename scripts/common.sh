# Shared by demo.sh and test.sh: installs the Debian packages TensorStitch
# needs (only those missing), configures and builds. Source it; do not run it.
set -euo pipefail

STITCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STITCH_BUILD="${STITCH_BUILD:-$STITCH_ROOT/build}"
# The Python package's virtual environment (it sees Debian's torch and numpy).
STITCH_VENV="${STITCH_VENV:-$STITCH_BUILD/venv}"

# Build tools, test and benchmark libraries, the JIT assembler, zlib (.npz),
# OpenMP, PyTorch + numpy (Debian's, under /usr/bin/python3) for the tests
# that compare with PyTorch, and venv + headers for the Python package.
STITCH_PACKAGES=(
  cmake ninja-build g++ clang ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  libxbyak-dev zlib1g-dev libomp-dev
  python3-torch python3-numpy python3-venv python3-dev
)

# The Python package's build and the main build compile the same library
# sources with the same compiler and flags: a compiler cache kept in the build
# folder compiles them once (a fresh build folder starts cold).
export CC="${CC:-gcc}" CXX="${CXX:-g++}"
export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-ccache}"
export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
export CCACHE_DIR="${CCACHE_DIR:-$STITCH_BUILD/ccache}"

stitch_missing_packages() {
  local p
  for p in "${STITCH_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

stitch_install_dependencies() {
  local missing
  missing=($(stitch_missing_packages))
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  echo "== installing: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# stitch_configure [CMAKE_OPTION...]
stitch_configure() {
  echo "== configuring $STITCH_BUILD (Release, Ninja)"
  local python_tests=()
  if [ -x "$STITCH_VENV/bin/python" ]; then
    python_tests=(-DSTITCH_TEST_PYTHON="$STITCH_VENV/bin/python")
  fi
  local nvrtc=()
  local lib
  for lib in "$STITCH_VENV"/lib/python3*/site-packages/nvidia/cu*/lib/libnvrtc.so.*; do
    [ -f "$lib" ] && nvrtc=(-DSTITCH_NVRTC="$lib")
  done
  cmake -S "$STITCH_ROOT" -B "$STITCH_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${python_tests[@]}" "${nvrtc[@]}" "$@"
}

# The checked build: `stitch` and the unit tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (the kernels it generates are compiled with
# them too). Its tests run from the main build's ctest (tests/scripts.cmake)
# when that was configured with -DSTITCH_SANITIZED_BUILD=<this folder>.
STITCH_SANITIZED_BUILD="${STITCH_SANITIZED_BUILD:-$STITCH_ROOT/build-sanitize}"
stitch_build_sanitized() {
  echo "== building the checked build in $STITCH_SANITIZED_BUILD (ASan + UBSan)"
  cmake -S "$STITCH_ROOT" -B "$STITCH_SANITIZED_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTITCH_SANITIZE=ON
  cmake --build "$STITCH_SANITIZED_BUILD" --target stitch unit_tests -j "$(nproc)"
}

# A venv seeing Debian's torch and numpy, with pytest (PyPI) and the
# tensorstitch package built from this checkout (scikit-build-core and
# nanobind come from PyPI in pip's isolated build). The package's own CMake
# build lives in $STITCH_BUILD/python-build, so a rerun is incremental.
stitch_python_package() {
  echo "== installing the tensorstitch package into $STITCH_VENV"
  if [ ! -x "$STITCH_VENV/bin/python" ]; then
    /usr/bin/python3 -m venv --system-site-packages "$STITCH_VENV"
  fi
  # NVRTC (no GPU needed) for the tests that compile every kernel's CUDA code.
  "$STITCH_VENV/bin/python" -m pip install -q --disable-pip-version-check pytest "nvidia-cuda-nvrtc>=13,<14"
  "$STITCH_VENV/bin/python" -m pip install -q --disable-pip-version-check \
    --config-settings=build-dir="$STITCH_BUILD/python-build" "$STITCH_ROOT"
}

# stitch_build [TARGET...]: everything by default.
stitch_build() {
  echo "== building ${*:-everything}"
  local targets=()
  local t
  for t in "$@"; do
    targets+=(--target "$t")
  done
  cmake --build "$STITCH_BUILD" "${targets[@]}" -j "$(nproc)"
}
