#!/usr/bin/env python3
"""The Python package's cost per call, and the examples through it.

    build/venv/bin/python bench/python_api_bench.py --stitch build-bench/tools/stitch/stitch \
        --api-overhead build-bench/bench/api_overhead [--reps 50] [--threads 2] [--calls 20000]

Run it with an interpreter that has tensorstitch installed (scripts/test.sh
makes build/venv; bench/setup_peers.sh makes a venv with PyPI's PyTorch 2.x).

1. Per-call overhead: `add_one(x)` (bench/programs/add_one.py, x + 1 on a
   one-element tensor) called in a Python loop through tensorstitch, through
   torch.jit.script, as eager PyTorch and (PyTorch 2.x) through
   torch.compile; and from C++ through the public API (api_overhead:
   Program::run with the arguments bound, Function::call with binding and
   signature lookup). Microseconds per call, median over batches of calls,
   one thread everywhere.
2. Every example through the package (the same inputs, the same thread
   count) next to `stitch run --bench` of the same program: median
   milliseconds, and the ratio (the package's own cost per call on top of
   the run).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

import tensorstitch as ts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from fusion_bench import EXAMPLES, make_inputs, time_torch, write_npz  # noqa: E402


def load_function(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def per_call_us(fn, x, calls, batches=15):
    for _ in range(1000):
        fn(x)
    batch = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn(x)
        batch.append((time.perf_counter() - start) / calls * 1e6)
    batch.sort()
    return batch[len(batch) // 2]


def overhead_rows(args, env):
    program = os.path.join(ROOT, "bench", "programs", "add_one.py")
    add_one = load_function(program, "add_one")
    x = torch.rand(1)
    rows = [("tensorstitch (Python)", per_call_us(ts.compile(add_one, threads=1), x, args.calls)),
            ("torch.jit.script", per_call_us(torch.jit.script(add_one), x, args.calls)),
            ("PyTorch eager", per_call_us(add_one, x, args.calls))]
    if hasattr(torch, "compile"):
        rows.append(("torch.compile", per_call_us(torch.compile(add_one), x, args.calls)))
    out = subprocess.run([args.api_overhead, program, "--calls", str(args.calls), "--threads", "1"],
                         capture_output=True, text=True, env=env, check=True)
    direct = json.loads(out.stdout)
    rows.append(("C++ Program::run", direct["program_run_us"]))
    rows.append(("C++ Function::call", direct["function_call_us"]))
    return rows


def example_rows(args, env, tmp):
    rng = np.random.default_rng(args.seed)
    rows = []
    for name, (tensors, scalars) in EXAMPLES.items():
        program = os.path.join(ROOT, "examples", f"{name}.py")
        arrays = make_inputs(tensors, rng)
        npz = os.path.join(tmp, f"{name}.npz")
        write_npz(npz, arrays)
        cmd = [args.stitch, "run", program, "--inputs", npz, "--threads", str(args.threads), "--json",
               "--bench", str(args.reps)]
        for k, v in scalars.items():
            cmd += ["--input", f"{k}={v}"]
        cli = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout)
        fn = ts.compile(load_function(program, name), threads=args.threads)
        call_args = []
        for k in list(tensors) + list(scalars):
            v = arrays[k] if k in arrays else scalars[k]
            call_args.append([torch.from_numpy(a) for a in v] if isinstance(v, list) else
                             torch.from_numpy(v) if isinstance(v, np.ndarray) else v)
        api = time_torch(fn, call_args, args.reps)
        rows.append((name, cli["time_ms"]["median"], api))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--api-overhead", required=True)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, STITCH_CACHE_DIR=os.path.join(tmp, "cache"))
        os.environ["STITCH_CACHE_DIR"] = env["STITCH_CACHE_DIR"]
        # The examples first: PyTorch's own OpenMP workers, once woken by
        # the peers' calls, keep spinning on the cores the kernels need.
        examples = example_rows(args, env, tmp)
        torch.set_num_threads(1)
        overhead = overhead_rows(args, env)
    print(f"torch {torch.__version__}, tensorstitch {ts.__version__}\n")
    print("| add_one(x), x: f32[1], one thread | us per call |")
    print("|---|---:|")
    for name, us in overhead:
        print(f"| {name} | {us:.2f} |")
    print(f"\nexamples, threads {args.threads}, median of {args.reps} runs, same inputs (seed {args.seed})\n")
    print("| example | stitch run --bench ms | tensorstitch call ms | ratio |")
    print("|---|---:|---:|---:|")
    for name, cli, api in examples:
        print(f"| {name} | {cli:.3f} | {api:.3f} | {api / cli:.3f} |")


if __name__ == "__main__":
    main()
