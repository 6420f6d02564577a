#!/usr/bin/python3
"""Differential tests: every case runs under PyTorch and under
`stitch run --mode MODE` (interp: the reference interpreter, optionally at
--stage; compiled: the whole pipeline and generated kernels); dtypes,
shapes and values must agree.

Cases live in cases_<family>.py as a list CASES of dicts:
  name    unique within the family
  src     the program (valid PyTorch, TorchScript subset); `import torch` and
          the typing imports are prepended when the file is written
  fn      the function to run
  inputs  {arg: spec}; spec is ("f32"|"f64", shape[, lo, hi]) (uniform,
          default [-1, 1)), ("i64"|"i32", shape, lo, hi) (integers in
          [lo, hi)), ("bool", shape), a Python int / float / bool scalar,
          or a list of tensor specs (a List[Tensor] argument)
  tol     optional (rtol, atol) for floats; default (1e-4, 1e-5)
  script  optional False: eager PyTorch is the reference but torch.jit.script
          types the program differently (skipped by --script)
  fallback  optional True: functionalization refuses the program on purpose
          and the later stages run its imperative graph (DCE only); past
          stage parsed every case must fall back exactly when it says so

Inputs are fresh random values on every run; a failing case prints its seed
(replay it with --seed S --filter NAME).

--device cuda runs the compiled cases on the GPU (`stitch run --device
cuda`). --cuda-code CHECKER runs no case: it renders each case's CUDA code
(`stitch dump --stage code --device cuda`, no GPU needed) and has CHECKER
(tests/cuda/cuda_compile_check) compile it with NVRTC for sm_80 and sm_90.
"""
import argparse
import glob
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import traceback
import zlib

import numpy as np

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from static_types import TypeMismatch, check_static_types  # noqa: E402
from tolerance import ATOL, RTOL, close_mask  # noqa: E402

PRELUDE = "import torch\nfrom typing import List, Tuple, Optional\n\n\n"
DEFAULT_TOL = (RTOL, ATOL)
NUMPY_DTYPES = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32,
                "bool": np.bool_}


class CaseFailure(Exception):
    pass


def discover_families():
    names = []
    for path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
        names.append(os.path.basename(path)[len("cases_"):-len(".py")])
    return names


def load_module(path, module_name):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_cases(family):
    module = load_module(os.path.join(HERE, "cases_%s.py" % family), "cases_" + family)
    seen = set()
    for case in module.CASES:
        if case["name"] in seen:
            raise SystemExit("duplicate case name %s in family %s" % (case["name"], family))
        seen.add(case["name"])
    return module.CASES


def is_scalar_spec(spec):
    return isinstance(spec, (bool, int, float))


def make_input(spec, rng):
    if is_scalar_spec(spec):
        return spec
    if isinstance(spec, list):
        return [make_input(s, rng) for s in spec]
    kind, shape = spec[0], tuple(spec[1])
    if kind in ("f32", "f64"):
        lo, hi = (spec[2], spec[3]) if len(spec) >= 4 else (-1.0, 1.0)
        return rng.uniform(lo, hi, size=shape).astype(NUMPY_DTYPES[kind])
    if kind in ("i64", "i32"):
        return rng.integers(spec[2], spec[3], size=shape).astype(NUMPY_DTYPES[kind])
    if kind == "bool":
        return rng.random(size=shape) < 0.5
    raise SystemExit("unknown input kind %r" % (kind,))


def scalar_literal(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    return text if any(c in text for c in ".eEn") else text + ".0"


def tensor_spec(kind, arr):
    return "%s[%s]" % (kind, ",".join(str(d) for d in arr.shape))


def spec_args(case, inputs):
    """--input NAME=SPEC arguments giving each input's dtype and shape."""
    args = []
    for name, value in inputs.items():
        spec = case["inputs"][name]
        if isinstance(value, np.ndarray):
            text = tensor_spec(spec[0], value)
        elif isinstance(value, list):
            text = "[%s]" % ",".join(tensor_spec(s[0], a) for s, a in zip(spec, value))
        else:
            text = scalar_literal(value)
        args += ["--input", "%s=%s" % (name, text)]
    return args


def flatten_result(value, out, error=CaseFailure):
    """Torch-side result -> list of numpy arrays, lists/tuples flattened;
    `error` is raised for a value of another kind."""
    import torch
    if isinstance(value, torch.Tensor):
        out.append(value.detach().cpu().numpy().copy())
    elif isinstance(value, (list, tuple)):
        for item in value:
            flatten_result(item, out, error)
    elif isinstance(value, bool):
        out.append(np.array(value, dtype=np.bool_))
    elif isinstance(value, int):
        out.append(np.array(value, dtype=np.int64))
    elif isinstance(value, float):
        out.append(np.array(value, dtype=np.float64))
    else:
        raise error("torch returned an unsupported value of type %s" % type(value).__name__)
    return out


def run_torch(module, case, inputs):
    """The function's PyTorch result, as returned (not flattened)."""
    import torch
    fn = getattr(module, case["fn"])
    args = []
    for name in fn.__code__.co_varnames[:fn.__code__.co_argcount]:
        if name not in inputs:
            raise CaseFailure("case gives no input for argument %r" % name)
        value = inputs[name]
        if isinstance(value, list):
            args.append([torch.from_numpy(a.copy()) for a in value])
        else:
            args.append(torch.from_numpy(value.copy()) if isinstance(value, np.ndarray) else value)
    return fn(*args)


def stitch_command(args, prog, case, inputs, in_npz, out_npz):
    cmd = [args.stitch, "run", prog, "--fn", case["fn"]]
    tensors = {k: v for k, v in inputs.items() if isinstance(v, np.ndarray)}
    for name, value in inputs.items():
        if isinstance(value, list):  # a List[Tensor] argument: members NAME_0, NAME_1, ...
            tensors.update(("%s_%d" % (name, i), a) for i, a in enumerate(value))
    for name, arr in tensors.items():
        # Some arrays go in Fortran order: the npz header says so and the
        # reader must honour it.
        if arr.ndim >= 2 and zlib.crc32((case["name"] + name).encode()) % 3 == 0:
            tensors[name] = np.asfortranarray(arr)
    if tensors:
        # Both npz flavours the CLI must read: stored and deflated.
        save = np.savez_compressed if zlib.crc32(case["name"].encode()) % 2 else np.savez
        save(in_npz, **tensors)
        cmd += ["--inputs", in_npz]
    for name, value in inputs.items():
        if is_scalar_spec(value):
            cmd += ["--input", "%s=%s" % (name, scalar_literal(value))]
    cmd += ["--outputs", out_npz, "--mode", args.mode]
    if args.device != "cpu":
        # Three runs: the second is recorded as a graph and the third
        # replays it (runtime/run_graphs.h); the outputs are the third's.
        cmd += ["--device", args.device, "--bench", "2"]
    if past_functionalization(args):
        cmd.append("--json")
    if args.mode == "compiled":
        cmd.append("--work")
    return cmd + (["--stage", args.stage] if args.stage else [])


def past_functionalization(args):
    return args.mode == "compiled" or args.stage in ("functional", "simplified")


def run_stitch(args, workdir, prog, case, inputs):
    in_npz = os.path.join(workdir, "in.npz")
    out_npz = os.path.join(workdir, "out.npz")
    cmd = stitch_command(args, prog, case, inputs, in_npz, out_npz)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise CaseFailure("stitch timed out after 60 s")
    if proc.returncode != 0:
        err = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise CaseFailure("stitch exited %d: %s" % (proc.returncode, " | ".join(err[-3:])))
    if not os.path.exists(out_npz):
        raise CaseFailure("stitch wrote no %s" % out_npz)
    if past_functionalization(args):
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            raise CaseFailure("stitch --json printed no JSON")
        check_fallback(args, case, report)
        if args.mode == "compiled":
            check_work(args, case, report)
    with np.load(out_npz) as data:
        keys = set(data.files)
        outs = []
        while "out%d" % len(outs) in keys:
            outs.append(data["out%d" % len(outs)])
        extra = keys - {"out%d" % i for i in range(len(outs))}
        if extra:
            raise CaseFailure("unexpected arrays in outputs: %s" % sorted(extra))
    return outs


def check_fallback(args, case, report):
    """A case falls back to the imperative graph exactly when it says so;
    --fallbacks also prints the reason of each that does."""
    reason = report.get("functional_fallback")
    if reason and args.fallbacks:
        print("FALLBACK %s: %s" % (case["name"], reason))
    if bool(reason) != case.get("fallback", False):
        raise CaseFailure("functionalization %s: %s" % (
            "refused it" if reason else "no longer refuses it (drop `fallback`)", reason or ""))


# Fusion saves loads and stores but must never make a value be recomputed
# per element of a loop it does not depend on: each kernel's operations per
# call stay within this factor of its ops' compiled each on their own.
WORK_LIMIT = 2.0


def check_work(args, case, report):
    for k in report["work"]:
        ratio = k["work"] / max(1, k["op_work"])
        if args.work_report:
            print("WORK %s %s %s %d %d %.3f" % (case["name"], k["kernel"], k["kind"], k["work"],
                                                 k["op_work"], ratio))
        if ratio > WORK_LIMIT:
            raise CaseFailure("kernel %s does %d operations per call, %.1fx its ops' %d on their own "
                              "(work inflation; limit %.0fx)" % (k["kernel"], k["work"], ratio,
                                                                  k["op_work"], WORK_LIMIT))


def describe(arr, limit=6):
    flat = np.asarray(arr).reshape(-1)
    text = np.array2string(flat[:limit], precision=6, separator=", ")
    return text[:-1] + ", ...]" if flat.size > limit else text


def compare_one(i, expected, got, tol):
    if got.dtype != expected.dtype:
        raise CaseFailure("out%d dtype: torch %s, stitch %s" % (i, expected.dtype, got.dtype))
    if got.shape != expected.shape:
        raise CaseFailure("out%d shape: torch %s, stitch %s" % (i, list(expected.shape),
                                                              list(got.shape)))
    if expected.dtype.kind != "f":
        if not np.array_equal(expected, got):
            bad = np.argwhere(expected != got)[0]
            raise CaseFailure("out%d differs at %s: torch %s, stitch %s (torch %s, stitch %s)" % (
                i, tuple(bad), expected[tuple(bad)], got[tuple(bad)], describe(expected),
                describe(got)))
        return
    rtol, atol = tol
    nan_expected, nan_got = np.isnan(expected), np.isnan(got)
    if not np.array_equal(nan_expected, nan_got):
        bad = np.argwhere(nan_expected != nan_got)[0]
        raise CaseFailure("out%d nan mismatch at %s: torch %s, stitch %s" % (
            i, tuple(bad), expected[tuple(bad)], got[tuple(bad)]))
    close = close_mask(got, expected, rtol=rtol, atol=atol) | nan_expected
    if not close.all():
        bad = np.argwhere(~close)[0]
        err = np.nanmax(np.abs(got.astype(np.float64) - expected))
        raise CaseFailure("out%d differs at %s: torch %r, stitch %r (max abs err %.3g; torch %s,"
                          " stitch %s)" % (i, tuple(bad), expected[tuple(bad)].item(),
                                           got[tuple(bad)].item(), err, describe(expected),
                                           describe(got)))


def compare(expected, got, tol):
    if len(expected) != len(got):
        raise CaseFailure("torch returned %d outputs, stitch %d" % (len(expected), len(got)))
    for i, (e, g) in enumerate(zip(expected, got)):
        compare_one(i, np.asarray(e), np.asarray(g), tol)


def check_scriptable(module, case):
    import torch
    try:
        torch.jit.script(getattr(module, case["fn"]))
    except Exception as e:  # the case is outside the TorchScript subset
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CaseFailure("not TorchScript: %s" % first)


class Skipped(Exception):
    pass


def check_cuda_code(args, workdir, prog, case, inputs):
    """The case's CUDA translation unit compiles with NVRTC."""
    cu = os.path.join(workdir, "%s.cu" % case["name"])
    cmd = [args.stitch, "dump", prog, "--fn", case["fn"], "--stage", "code", "--device", "cuda"]
    proc = subprocess.run(cmd + spec_args(case, inputs), capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        err = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise CaseFailure("stitch dump --device cuda exited %d: %s" % (proc.returncode, " | ".join(err[-3:])))
    with open(cu, "w") as f:
        f.write(proc.stdout)
    check = subprocess.run([args.cuda_code, "--fast", cu], capture_output=True, text=True, timeout=120)
    if check.returncode == 77:
        raise Skipped(check.stdout.strip())
    if check.returncode != 0:
        raise CaseFailure("NVRTC rejects its CUDA code:\n%s" % (check.stdout.strip() or check.stderr.strip()))


def run_case(family, case, seed, args, workdir):
    rng = np.random.default_rng(seed)
    specs = case["bench_inputs"] if args.bench_shapes else case["inputs"]
    inputs = {name: make_input(spec, rng) for name, spec in specs.items()}
    prog = os.path.join(workdir, "%s.py" % case["name"])
    with open(prog, "w") as f:
        f.write(PRELUDE + case["src"].strip("\n") + "\n")
    if args.cuda_code:
        return check_cuda_code(args, workdir, prog, case, inputs)
    module = load_module(prog, "prog_%s_%s" % (family, case["name"]))
    try:
        result = run_torch(module, case, inputs)
        expected = flatten_result(result, [])
    except CaseFailure:
        raise
    except Exception as e:
        raise CaseFailure("torch raised %s: %s" % (type(e).__name__, str(e).splitlines()[0]))
    if args.torch_only:
        if args.script and case.get("script", True):
            check_scriptable(module, case)
        return
    got = run_stitch(args, workdir, prog, case, inputs)
    compare(expected, got, case.get("tol", DEFAULT_TOL))
    if not args.no_types:
        try:
            check_static_types(args.stitch, prog, case["fn"], spec_args(case, inputs), result)
        except TypeMismatch as e:
            raise CaseFailure("static types: %s" % e)


def run_family(family, args):
    passed = failed = 0
    for index, case in enumerate(load_cases(family)):
        if args.filter and args.filter not in case["name"]:
            continue
        if args.sample and index % args.sample != 0:
            continue
        if args.bench_shapes and "bench_inputs" not in case:
            continue
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
        workdir = tempfile.mkdtemp(prefix="stitch-diff-%s-" % case["name"])
        label = "%s.%s" % (family, case["name"])
        try:
            run_case(family, case, seed, args, workdir)
            passed += 1
            print("PASS %s" % label)
        except CaseFailure as e:
            failed += 1
            print("FAIL %s: %s (seed %d)" % (label, e, seed))
        except Skipped as e:
            print("SKIPPED: %s" % e)
            raise
        except Exception:
            failed += 1
            print("FAIL %s: runner error (seed %d)\n%s" % (label, seed, traceback.format_exc()))
        finally:
            if args.keep:
                print("     kept %s" % workdir)
            else:
                shutil.rmtree(workdir, ignore_errors=True)
        sys.stdout.flush()
    return passed, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stitch", help="path of the stitch binary")
    parser.add_argument("--mode", default="interp", choices=("interp", "compiled"),
                        help="stitch run --mode (default interp)")
    parser.add_argument("--stage", help="with --mode interp: stitch run --stage (parsed, "
                                        "functional, simplified)")
    parser.add_argument("--family", action="append",
                        help="case family (cases_<family>.py); default: all")
    parser.add_argument("--filter", help="only cases whose name contains this")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="only every N-th case of each family (a fixed sample)")
    parser.add_argument("--seed", type=int, help="input seed (default: fresh per case)")
    parser.add_argument("--keep", action="store_true", help="keep each case's temp dir")
    parser.add_argument("--torch-only", action="store_true",
                        help="run the PyTorch side only (checks the cases themselves)")
    parser.add_argument("--script", action="store_true",
                        help="with --torch-only: also check each case with torch.jit.script")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--no-types", action="store_true",
                        help="skip comparing the types `stitch dump` infers with the results")
    parser.add_argument("--bench-shapes", action="store_true",
                        help="only the cases with benchmark shapes (the workloads), at those shapes")
    parser.add_argument("--work-report", action="store_true",
                        help="compiled mode: print each kernel's work estimate (WORK case kernel kind "
                        "work op_work ratio)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="compiled mode: stitch run --device (cuda: the generated kernels on the GPU)")
    parser.add_argument("--cuda-code", metavar="CHECKER",
                        help="run nothing: compile each case's CUDA code with CHECKER "
                             "(tests/cuda/cuda_compile_check; exit 77 = no NVRTC: skipped)")
    parser.add_argument("--fallbacks", action="store_true",
                        help="also print FALLBACK lines for cases functionalization refused "
                             "(the imperative graph ran instead)")
    args = parser.parse_args()
    families = args.family or discover_families()
    if args.list:
        for family in families:
            for case in load_cases(family):
                print("%s.%s" % (family, case["name"]))
        return 0
    if args.stage and args.mode != "interp":
        parser.error("--stage applies to --mode interp")
    if args.device != "cpu" and args.mode != "compiled":
        parser.error("--device applies to --mode compiled")
    if not args.torch_only and not args.stitch:
        parser.error("--stitch is required (or use --torch-only)")
    if args.stitch and not os.access(args.stitch, os.X_OK):
        parser.error("no stitch binary at %s" % args.stitch)
    total_passed = total_failed = 0
    for family in families:
        try:
            passed, failed = run_family(family, args)
        except Skipped:
            return 77
        total_passed += passed
        total_failed += failed
    print("%d passed, %d failed" % (total_passed, total_failed))
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
