#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite
# (unit tests, examples, differential and error suites, random programs, the
# Python package's tests in its venv, and the checked build's tests under
# AddressSanitizer + UndefinedBehaviorSanitizer). Exits with ctest's code.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

stitch_install_dependencies
stitch_python_package
stitch_configure -DSTITCH_SANITIZED_BUILD="$STITCH_SANITIZED_BUILD"
stitch_build
stitch_build_sanitized

cd "$STITCH_ROOT"
exec ctest --test-dir "$STITCH_BUILD" --output-on-failure -j2
