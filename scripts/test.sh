#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite
# (unit tests, examples, differential and error suites, the Python package's
# tests in its venv). Exits with ctest's code.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

stitch_install_dependencies
stitch_python_package
stitch_configure
stitch_build

cd "$STITCH_ROOT"
exec ctest --test-dir "$STITCH_BUILD" --output-on-failure -j2
