#!/usr/bin/env python3
"""Robustness: `stitch run` on broken variants of the differential programs
(truncated, characters deleted or swapped, lines re-indented or duplicated,
names replaced) and on the unchanged programs with random input shapes must
end cleanly: exit code 0, 1 or 2; on failure exactly one stderr line
`FILE:LINE:COL: error: ...` or `stitch: error: ...`; never a crash, a hang
or an internal error.

Variants are fresh random on every run; a failure prints its seed and keeps
the offending program (replay with --seed S).
"""
import argparse
import glob
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
DIFFERENTIAL = os.path.join(HERE, "..", "differential")
PRELUDE = "import torch\nfrom typing import List, Tuple, Optional\n\n\n"
LINE_OK = re.compile(r"^(.+:\d+:\d+: error: |stitch: error: ).+")
NAMES = ["x", "y", "torch", "sum", "view", "range", "int", "float", "zz", "None", "True"]


def load_programs():
    sys.path.insert(0, DIFFERENTIAL)  # the case files import their builders
    programs = []
    for path in sorted(glob.glob(os.path.join(DIFFERENTIAL, "cases_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        programs += module.CASES
    return programs


def mutate_source(src, rng):
    kind = rng.choice(["truncate", "delete", "swap", "indent", "duplicate", "rename", "insert"])
    if kind == "truncate":
        return src[:rng.randrange(1, len(src))]
    pos = rng.randrange(len(src) - 1)
    if kind == "delete":
        return src[:pos] + src[pos + rng.randint(1, 3):]
    if kind == "swap":
        return src[:pos] + src[pos + 1] + src[pos] + src[pos + 2:]
    if kind == "insert":
        return src[:pos] + rng.choice("()[]:,.=+*-@'\"\\#\t ") + src[pos:]
    lines = src.split("\n")
    i = rng.randrange(len(lines))
    if kind == "indent":
        lines[i] = " " * rng.choice([0, 1, 2, 3, 4, 8]) + lines[i].lstrip()
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    else:
        words = re.findall(r"[A-Za-z_]\w*", lines[i])
        if words:
            lines[i] = re.sub(r"\b%s\b" % re.escape(rng.choice(words)), rng.choice(NAMES),
                              lines[i], count=1)
    return "\n".join(lines)


def random_shape(rng, rank_hint):
    rank = max(0, rank_hint + rng.choice([-1, 0, 0, 1]))
    return [rng.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(rank)]


def tensor_arg(spec, rng, shuffle_shapes):
    shape = random_shape(rng, len(spec[1])) if shuffle_shapes else list(spec[1])
    return "%s[%s]" % (spec[0], ",".join(str(d) for d in shape))


def input_args(case, rng, shuffle_shapes):
    args = []
    for name, spec in case["inputs"].items():
        if isinstance(spec, bool):
            value = "true" if spec else "false"
        elif isinstance(spec, (int, float)):
            value = repr(spec)
        elif isinstance(spec, list):  # a List[Tensor] argument
            value = "[%s]" % ",".join(tensor_arg(s, rng, shuffle_shapes) for s in spec)
        else:
            value = tensor_arg(spec, rng, shuffle_shapes)
        args += ["--input", "%s=%s" % (name, value)]
    return args


def check(proc):
    if proc.returncode not in (0, 1, 2):
        return "exit code %d" % proc.returncode
    if proc.returncode == 0:
        return None
    lines = proc.stderr.splitlines()
    if len(lines) != 1:
        return "%d stderr lines: %s" % (len(lines), " | ".join(lines[:3]))
    if "internal error" in lines[0] or not LINE_OK.match(lines[0]):
        return "bad error line: %s" % lines[0]
    return None


def explain_timeout(args, cmd):
    """A run that does not finish is a failure unless the program itself
    never ends (e.g. `while x.sum() < 100` on an empty x): the compiler must
    still finish its work (`dump` to the last stage of the mode), and in
    compiled mode the reference interpreter must not finish either."""
    run_args = cmd[2:]
    inputs = [a for i, a in enumerate(run_args)
              if a == "--input" or (i > 0 and run_args[i - 1] == "--input")]
    stage = "code" if args.mode == "compiled" else "simplified"
    dump = [args.stitch, "dump", run_args[0], "--fn", run_args[2], "--stage", stage] + inputs
    try:
        subprocess.run(dump, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the compiler does not finish (dump --stage %s timed out after 30 s)" % stage
    if args.mode == "interp":
        return None
    reference = [a if a != "compiled" else "interp" for a in cmd]
    try:
        subprocess.run(reference, capture_output=True, text=True, timeout=15)
    except subprocess.TimeoutExpired:
        return None
    return "timed out after 30 s where the reference interpreter finishes"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--count", type=int, default=150, help="variants to run")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--mode", default="interp", choices=("interp", "compiled"),
                        help="stitch run --mode (default interp)")
    args = parser.parse_args()
    if args.stitch and not os.access(args.stitch, os.X_OK):
        parser.error("no stitch binary at %s" % args.stitch)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    programs = load_programs()
    workdir = tempfile.mkdtemp(prefix="stitch-robust-")
    failed = 0
    endless = 0
    exit_codes = {}
    for i in range(args.count):
        case = rng.choice(programs)
        shapes_only = i % 2 == 1
        src = PRELUDE + case["src"].strip("\n") + "\n"
        if not shapes_only:
            src = mutate_source(src, rng)
        prog = os.path.join(workdir, "v%03d_%s.py" % (i, case["name"]))
        with open(prog, "w") as f:
            f.write(src)
        cmd = [args.stitch, "run", prog, "--fn", case["fn"], "--mode", args.mode,
               "--seed", str(rng.randrange(1000))] + input_args(case, rng, shapes_only)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            exit_codes[proc.returncode] = exit_codes.get(proc.returncode, 0) + 1
            problem = check(proc)
        except subprocess.TimeoutExpired:
            problem = explain_timeout(args, cmd)
            if problem is None:
                endless += 1
        if problem:
            failed += 1
            print("FAIL %s: %s\n     %s" % (os.path.basename(prog), problem,
                                         " ".join(cmd[1:])))
        else:
            os.remove(prog)
    print("exit codes: %s" % ", ".join("%d: %d" % kv for kv in sorted(exit_codes.items())))
    if endless:
        print("%d variants loop forever as written (the reference interpreter does too)" % endless)
    print("%d passed, %d failed (seed %d)" % (args.count - failed, failed, seed))
    if not failed:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
