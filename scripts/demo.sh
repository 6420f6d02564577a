#!/usr/bin/env bash
# Installs what is missing, builds the `stitch` command and runs every example
# through the reference interpreter and as compiled code, then the Normalize
# acceptance command.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

stitch_install_dependencies
stitch_configure
stitch_build stitch

STITCH="$STITCH_BUILD/tools/stitch/stitch"
cd "$STITCH_ROOT"

show() {
  echo
  echo "\$ stitch $*"
  "$STITCH" "$@"
}

show --version

show run examples/softmax.py --mode interp --input x=f32[64,1000] --check
show run examples/layernorm.py --mode interp --input x=f32[64,768] --input weight=f32[768] \
  --input bias=f32[768] --input eps=1e-5 --check
show run examples/bbox_decode.py --mode interp \
  --input 'anchors=[f32[1200,4],f32[300,4],f32[75,4]]' \
  --input 'deltas=[f32[1200,4],f32[300,4],f32[75,4]]' --input width=640 --input height=480
show run examples/lstm.py --mode interp --input x=f32[8,4,32] --input w_ih=f32[2,128,32] \
  --input w_hh=f32[2,128,32] --input b=f32[2,128] --input state_h=f32[2,4,32] \
  --input state_c=f32[2,4,32] --json

show dump examples/normalize.py --input src=f32[800,1333,3] --input mean=0.5 --input scale=2

# The same program after functionalization and simplification: no view or
# in-place op is left; the LSTM's in-place state updates become pure ops too.
show dump examples/normalize.py --input src=f32[800,1333,3] --input mean=0.5 --input scale=2 \
  --stage simplified
show run examples/lstm.py --mode interp --stage simplified --input x=f32[8,4,32] \
  --input w_ih=f32[2,128,32] --input w_hh=f32[2,128,32] --input b=f32[2,128] \
  --input state_h=f32[2,4,32] --input state_c=f32[2,4,32] --check --json

# Compiled execution (the default mode): generated C kernels, checked against
# the reference interpreter; --json shows kernel calls and where the code
# came from (compiler, disk cache or memory).
show run examples/normalize.py --input src=f32[800,1333,3] --input mean=0.5 --input scale=2 \
  --check --bench 10
show run examples/softmax.py --input x=f32[64,1000] --check --bench 10 --json
show run examples/layernorm.py --input x=f32[64,768] --input weight=f32[768] \
  --input bias=f32[768] --input eps=1e-5 --check --bench 10
show run examples/lstm.py --input x=f32[8,4,32] --input w_ih=f32[2,128,32] \
  --input w_hh=f32[2,128,32] --input b=f32[2,128] --input state_h=f32[2,4,32] \
  --input state_c=f32[2,4,32] --check --bench 10
show dump examples/softmax.py --input x=f32[64,1000] --stage ugraph
show dump examples/softmax.py --input x=f32[64,1000] --stage code

# The acceptance command, writing its output into a scratch folder.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
show run examples/normalize.py --input src=f32[800,1333,3] --input mean=0.5 --input scale=2 \
  --mode interp --outputs "$work/o.npz"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo
  echo "numpy reads $work/o.npz:"
  /usr/bin/python3 -c '
import sys, numpy as np
with np.load(sys.argv[1]) as f:
    for name in f.files:
        a = f[name]
        print(f"  {name}: {a.dtype}{list(a.shape)} mean {a.mean():.6f}")
' "$work/o.npz"
fi
echo
echo "demo finished"
