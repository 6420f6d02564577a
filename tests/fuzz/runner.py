"""Runs one program under PyTorch (the reference: eager, and it must also
pass torch.jit.script) and under `stitch run` in five configurations on the
same inputs, and classifies each run.

Classes, worst first: crash (a signal, or an exit without the one clean
error line), internal (the output says "internal error"), timeout,
run-error (exit 1 although PyTorch ran the program), mismatch (dtype, shape
or values differ from PyTorch), refused (exit 2: stitch rejects a program
PyTorch accepts), ok.
"""
import importlib.util
import itertools
import os
import re
import signal
import subprocess
import sys
import time
import warnings

import numpy as np

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "differential"))
import run_differential as diff  # noqa: E402

# compiled-cuda runs the generated kernels through the CUDA path: on the
# CUDA emulator unless STITCH_CUDA_EMULATOR is set otherwise (0: a GPU),
# three runs, so the outputs compared are a graph replay's where the run
# could be recorded (runtime/run_graphs.h).
CONFIGS = [
    ("compiled-t2", ["--mode", "compiled", "--threads", "2"]),
    ("compiled-cuda", ["--mode", "compiled", "--threads", "2", "--device", "cuda", "--bench", "2"]),
    ("compiled-t1", ["--mode", "compiled", "--threads", "1"]),
    ("interp-simplified", ["--mode", "interp", "--stage", "simplified"]),
    ("interp-parsed", ["--mode", "interp"]),
]
STITCH_ENV = dict(os.environ)
STITCH_ENV.setdefault("STITCH_CUDA_EMULATOR", "1")
CLASSES = ["crash", "internal", "timeout", "run-error", "mismatch", "refused", "ok"]
FAILURES = {"crash", "internal", "timeout", "run-error", "mismatch"}
TIMEOUT_S = 60
TORCH_TIMEOUT_S = 20
RTOL, ATOL = 1e-4, 1e-5
PERTURBATION = 1e-6  # relative change of the float inputs for Reference.spread
PERTURBED_RUNS = 3
SPREAD_FACTOR = 10
CLEAN_ERROR = re.compile(r"^(\S.*:\d+:\d+: error: |stitch: error: ).+$")
NUMPY_DTYPES = diff.NUMPY_DTYPES


# ---- inputs -------------------------------------------------------------------

def make_inputs(specs, seed):
    """Input values for specs in the differential suite's form: floats
    uniform in [lo, hi) (default [-1, 1)), integers in [lo, hi), bools;
    Python scalars stay as they are."""
    rng = np.random.default_rng(seed)
    values = {}
    for name, spec in specs.items():
        if isinstance(spec, (bool, int, float)):
            values[name] = spec
            continue
        kind, shape = spec[0], tuple(spec[1])
        if kind in ("f32", "f64"):
            lo, hi = (spec[2], spec[3]) if len(spec) >= 4 else (-1.0, 1.0)
            values[name] = rng.uniform(lo, hi, size=shape).astype(NUMPY_DTYPES[kind])
        elif kind in ("i64", "i32"):
            values[name] = rng.integers(spec[2], spec[3], size=shape).astype(NUMPY_DTYPES[kind])
        else:
            values[name] = rng.random(size=shape) < 0.5
    return values


scalar_literal = diff.scalar_literal


# ---- PyTorch --------------------------------------------------------------------

_module_ids = itertools.count()


class Invalid(Exception):
    """PyTorch (eager or torch.jit.script) rejects the program."""


def load_module(path):
    name = "fuzzprog_%d_%d" % (os.getpid(), next(_module_ids))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # shrinking makes odd but harmless code
            spec.loader.exec_module(module)
    except Exception as e:
        raise Invalid("import: %s" % first_line(e))
    return module


def first_line(e):
    text = str(e).strip()
    return "%s: %s" % (type(e).__name__, text.splitlines()[0] if text else "")


def flatten(value, out):
    return diff.flatten_result(value, out, Invalid)


class _Timeout(BaseException):  # not caught as a PyTorch error
    pass


def _alarm(signum, frame):
    raise _Timeout()


class Reference:
    """PyTorch's flattened outputs and, per float output, how far they move
    when the float inputs move by a few ulps (`spread`, None where the
    perturbed run does not line up): the error a correct implementation may
    have where the computation is ill-conditioned (cancellation, large
    arguments of sin/cos, values near a branch)."""

    def __init__(self, outputs, spread):
        self.outputs, self.spread = outputs, spread


def torch_reference(path, fn_name, inputs, seconds=TORCH_TIMEOUT_S):
    """The program's Reference; raises Invalid when eager PyTorch or
    torch.jit.script rejects the program (or takes longer than `seconds`)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        return _torch_reference(path, fn_name, inputs)
    except _Timeout:
        raise Invalid("timeout: PyTorch took more than %d s" % seconds)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_eager(fn, inputs):
    import torch
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    args = [torch.from_numpy(inputs[n].copy()) if isinstance(inputs[n], np.ndarray) else inputs[n]
            for n in names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return flatten(fn(*args), [])


def perturbed(inputs, rng):
    out = {}
    for name, v in inputs.items():
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            v = (v * (1 + PERTURBATION * rng.uniform(-1, 1, v.shape))).astype(v.dtype)
        out[name] = v
    return out


def widened(inputs):
    """The inputs with their float32 tensors as float64."""
    return {n: v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype == np.float32 else v
            for n, v in inputs.items()}


def same_in_float64(expected, wide, spread):
    """PyTorch's float64 run of the program gives its float32 result: ints
    and bools exactly, floats within the comparison's tolerance. A result
    that rounding decides (a tie in sort or argmax between values that are
    equal only after rounding, a saturated function's 1.0 against
    0.99999994) differs, and no float32 implementation is wrong about it;
    perturbing the inputs cannot reveal it when the rounding saturates."""
    if len(wide) != len(expected):
        return False
    for i, (e, w) in enumerate(zip(expected, wide)):
        if e.shape != w.shape or (e.dtype.kind == "f") != (w.dtype.kind == "f"):
            return False
        if e.dtype.kind != "f":
            if not np.array_equal(e, w):
                return False
        elif compare_one(i, e, w.astype(e.dtype), spread[i]) is not None:
            return False
    return True


def exact_parts_agree(expected, moved):
    """The results compared exactly (ints, bools, shapes) do not move: a
    branch or an argmax decided by rounding noise has no right answer."""
    if len(moved) != len(expected):
        return False
    for e, m in zip(expected, moved):
        if e.shape != m.shape or e.dtype != m.dtype:
            return False
        if e.dtype.kind != "f" and not np.array_equal(e, m):
            return False
    return True


def widest(a, b):
    if a is None or b is None:
        return b if a is None else a
    return np.fmax(a, b)


def spread_of(expected, moved):
    if len(moved) != len(expected):
        return [None] * len(expected)
    spread = []
    for e, m in zip(expected, moved):
        same = e.shape == m.shape and e.dtype == m.dtype and e.dtype.kind == "f"
        with np.errstate(invalid="ignore"):
            spread.append(np.abs(m.astype(np.float64) - e) if same else None)
    return spread


def _torch_reference(path, fn_name, inputs):
    import torch
    module = load_module(path)
    try:
        fn = getattr(module, fn_name)
        expected, spread = eager_reference(fn, inputs)
        try:
            torch.jit.script(fn)
        except Exception as e:
            raise Invalid("script: %s" % first_line(e))
    finally:
        sys.modules.pop(module.__name__, None)
    return Reference(expected, spread)


def eager_reference(fn, inputs):
    """fn's outputs on inputs, and their spread under perturbed inputs."""
    try:
        expected = run_eager(fn, inputs)
        spread = [None] * len(expected)
        for seed in range(PERTURBED_RUNS):
            moved = run_eager(fn, perturbed(inputs, np.random.default_rng(seed)))
            if not exact_parts_agree(expected, moved):
                raise Invalid("unstable: an int or bool result changes when the inputs move "
                              "by %g" % PERTURBATION)
            spread = [widest(a, b) for a, b in zip(spread, spread_of(expected, moved))]
        if not same_in_float64(expected, run_eager(fn, widened(inputs)), spread):
            raise Invalid("unstable: float64 arithmetic gives another result (rounding "
                          "decides a tie, a saturation or a branch)")
    except Invalid:
        raise
    except Exception as e:
        raise Invalid("eager: %s" % first_line(e))
    return expected, spread


# ---- comparison ------------------------------------------------------------------

def compare_one(i, expected, got, spread=None):
    """None when they agree, else why not. Floats agree within rtol of the
    element's magnitude or of 1% of the output's largest magnitude (errors
    of a sum scale with its terms, which the largest element bounds), plus
    atol, plus SPREAD_FACTOR times the output's widest spread (Reference); nan
    positions must match. Ints and bools exactly."""
    if got.dtype != expected.dtype:
        return "out%d dtype: torch %s, stitch %s" % (i, expected.dtype, got.dtype)
    if got.shape != expected.shape:
        return "out%d shape: torch %s, stitch %s" % (i, list(expected.shape), list(got.shape))
    if expected.dtype.kind != "f":
        if np.array_equal(expected, got):
            return None
        bad = tuple(np.argwhere(expected != got)[0])
        return "out%d differs at %s: torch %s, stitch %s" % (i, bad, expected[bad], got[bad])
    e, g = expected.astype(np.float64), got.astype(np.float64)
    nan_e, nan_g = np.isnan(e), np.isnan(g)
    if not np.array_equal(nan_e, nan_g):
        bad = tuple(np.argwhere(nan_e != nan_g)[0])
        return "out%d nan at %s: torch %r, stitch %r" % (i, bad, e[bad], g[bad])
    finite = np.isfinite(e)
    scale = np.abs(e[finite]).max() if finite.any() else 0.0
    with np.errstate(invalid="ignore"):
        tol = ATOL + RTOL * np.maximum(np.abs(e), 0.01 * scale)
        if spread is not None:
            # One element's rounding may hide a move its neighbours show.
            finite = np.isfinite(spread)
            widest_move = spread[finite].max() if finite.any() else 0.0
            tol = tol + SPREAD_FACTOR * np.where(finite, widest_move, np.inf)
        close = (np.abs(g - e) <= tol) | (e == g) | nan_e
    if close.all():
        return None
    bad = tuple(np.argwhere(~close)[0])
    return "out%d differs at %s: torch %r, stitch %r" % (i, bad, e[bad], g[bad])


def compare(reference, got):
    expected = reference.outputs
    if len(expected) != len(got):
        return "torch returned %d outputs, stitch %d" % (len(expected), len(got))
    for i, (e, g) in enumerate(zip(expected, got)):
        why = compare_one(i, np.asarray(e), np.asarray(g), reference.spread[i])
        if why:
            return why
    return None


# ---- stitch ------------------------------------------------------------------------

class Run:
    """One stitch run: its class, a one-line message, and what it printed."""

    def __init__(self, config, cls, message, cmd, rc=None, stdout="", stderr=""):
        self.config, self.cls, self.message, self.cmd = config, cls, message, cmd
        self.rc, self.stdout, self.stderr = rc, stdout, stderr

    def signature(self):
        return signature(self.cls, self.message)


def signature(cls, message):
    """What must stay the same while a failure shrinks: the class, and for
    messages the compiler printed the text without locations and numbers."""
    if cls in ("mismatch", "timeout", "ok"):
        return cls
    text = re.sub(r"^\S*:\d+:\d+: ", "", message)
    return "%s: %s" % (cls, re.sub(r"\d+", "N", text))


def stitch_command(stitch, prog, fn, inputs, in_npz, out_npz, config_args):
    cmd = [stitch, "run", prog, "--fn", fn]
    if any(isinstance(v, np.ndarray) for v in inputs.values()):
        cmd += ["--inputs", in_npz]
    for name, value in inputs.items():
        if not isinstance(value, np.ndarray):
            cmd += ["--input", "%s=%s" % (name, scalar_literal(value))]
    return cmd + ["--outputs", out_npz] + config_args


def write_inputs(inputs, in_npz):
    tensors = {k: v for k, v in inputs.items() if isinstance(v, np.ndarray)}
    if tensors:
        np.savez(in_npz, **tensors)


def read_outputs(out_npz):
    with np.load(out_npz) as data:
        outs = []
        while "out%d" % len(outs) in data.files:
            outs.append(data["out%d" % len(outs)])
        return outs


def start_stitch(cmd, timeout, attempts=5):
    """subprocess.run, waiting a little while the binary cannot be executed
    (being rebuilt: busy or not yet executable)."""
    for attempt in range(attempts):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                  timeout=timeout, env=STITCH_ENV)
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(2)


def run_stitch(stitch, prog, fn, inputs, workdir, config, reference, timeout=TIMEOUT_S):
    """Runs one configuration on inputs already written to workdir/in.npz."""
    name, config_args = config
    in_npz = os.path.join(workdir, "in.npz")
    out_npz = os.path.join(workdir, "out-%s.npz" % name)
    if os.path.exists(out_npz):
        os.remove(out_npz)
    cmd = stitch_command(stitch, prog, fn, inputs, in_npz, out_npz, config_args)
    try:
        proc = start_stitch(cmd, timeout)
    except subprocess.TimeoutExpired:
        return Run(name, "timeout", "no result after %d s" % timeout, cmd)
    run = Run(name, None, "", cmd, proc.returncode, proc.stdout, proc.stderr)
    run.cls, run.message = classify(proc, out_npz, reference)
    return run


def classify(proc, out_npz, reference):
    text = proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    if "internal error" in text:
        line = next(l for l in text.splitlines() if "internal error" in l)
        return "internal", line.strip()
    if proc.returncode < 0:
        return "crash", "signal %d" % -proc.returncode
    if proc.returncode in (1, 2):
        if len(lines) != 1 or not CLEAN_ERROR.match(lines[0]):
            tail = " | ".join(lines[-3:]) or "(no message)"
            return "crash", "exit %d without one clean error line: %s" % (proc.returncode, tail)
        return ("refused" if proc.returncode == 2 else "run-error"), lines[0]
    if proc.returncode != 0:
        return "crash", "exit %d: %s" % (proc.returncode, " | ".join(lines[-3:]))
    if not os.path.exists(out_npz):
        return "crash", "exit 0 without writing the outputs"
    why = compare(reference, read_outputs(out_npz))
    return ("mismatch", why) if why else ("ok", "")


def worst(runs):
    return min(runs, key=lambda r: CLASSES.index(r.cls))
