#!/usr/bin/env bash
# Random-program campaign (tests/fuzz): generates valid programs, runs each
# through `stitch run` in four configurations against PyTorch, shrinks the
# failures and prints a class table.
#
#   scripts/fuzz.sh --minutes N --seed S [--out DIR] [more tests/fuzz/fuzz.py options]
#
# Builds `stitch` first when the binary is missing (the Debian packages must
# be installed; scripts/test.sh installs them). Failures go to DIR (default
# build/fuzz/seed-S), one directory each.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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
