#!/usr/bin/env bash
# Random-program campaign (tests/fuzz): generates valid programs, runs each
# through `stitch run` in five configurations against PyTorch, shrinks the
# failures and prints a class table.
#
#   scripts/fuzz.sh --minutes N --seed S [--out DIR] [more tests/fuzz/fuzz.py options]
#
# Builds `stitch` first when the binary is missing (the Debian packages must
# be installed; scripts/test.sh installs them). Failures go to DIR (default
# build/fuzz/seed-S), one directory each.
#
#   scripts/fuzz.sh --parser --minutes N [--jobs J]
#
# Fuzzes the lexer, parser and emitter with libFuzzer (tests/fuzz/parser):
# a clang build with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-parser-fuzzer/, seeded with every program the test suites hold. Each
# input must give a verified graph or a located user error; a crash, a
# sanitizer report, a hang (10 s) or an internal error stops the run and
# leaves the input as build-parser-fuzzer/findings/crash-* (or timeout-*).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [ "${1:-}" = "--parser" ]; then
  shift
  minutes=10
  jobs=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --minutes) minutes="$2"; shift 2 ;;
      --jobs) jobs="$2"; shift 2 ;;
      *) echo "fuzz.sh --parser: unknown option $1" >&2; exit 2 ;;
    esac
  done
  # libFuzzer's runtime comes with clang's compiler-rt (a recommended
  # package, not installed with clang itself).
  source "$root/scripts/common.sh"
  STITCH_PACKAGES+=(libclang-rt-dev)
  stitch_install_dependencies
  fbuild="${STITCH_FUZZ_BUILD:-$root/build-parser-fuzzer}"
  CC=clang CXX=clang++ cmake -S "$root" -B "$fbuild" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTITCH_PARSER_FUZZER=ON -DSTITCH_BUILD_TESTS=OFF >/dev/null
  ninja -C "$fbuild" parser_fuzzer
  mkdir -p "$fbuild/seeds" "$fbuild/corpus" "$fbuild/findings"
  /usr/bin/python3 "$root/tests/fuzz/parser/seed_corpus.py" "$fbuild/seeds"
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
  cd "$fbuild/findings"
  exec "$fbuild/tests/fuzz/parser/parser_fuzzer" -dict="$root/tests/fuzz/parser/parser.dict" \
    -timeout=10 -max_len=4096 -rss_limit_mb=4096 -max_total_time=$((minutes * 60)) \
    -print_final_stats=1 "${parallel[@]}" -artifact_prefix="$fbuild/findings/" \
    "$fbuild/corpus" "$fbuild/seeds"
fi
build="${STITCH_BUILD:-$root/build}"
stitch="$build/tools/stitch/stitch"

if [ ! -x "$stitch" ]; then
  echo "== building stitch in $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
  ninja -C "$build" stitch
fi

seed=1
out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --seed) seed="${args[$((i + 1))]:-$seed}" ;;
    --out) out="${args[$((i + 1))]:-}" ;;
  esac
done
extra=()
if [ -z "$out" ]; then
  extra=(--out "$build/fuzz/seed-$seed")
fi

exec /usr/bin/python3 "$root/tests/fuzz/fuzz.py" --stitch "$stitch" --seed "$seed" "${extra[@]}" "$@"
