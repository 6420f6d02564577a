#!/usr/bin/env python3
"""Fused compiled programs side by side with PyTorch eager and TorchScript.

    /usr/bin/python3 bench/fusion_bench.py --stitch build-bench/tools/stitch/stitch \
        --copy-bandwidth build-bench/bench/copy_bandwidth [--reps 50] [--threads 2]

For every example: the same inputs (generated here from one seed, handed to
stitch through --inputs) run by
  * stitch (compiled; checked once with --check first, so a wrong result
    fails the benchmark instead of producing a figure),
  * PyTorch eager and torch.jit.script (Debian python3-torch, the same
    thread count),
each the median of --reps runs after warm-up. Prints one markdown report:
times, kernel calls per run, the speed-up over the faster of the two peers
and its geometric mean; then, for the memory-bound programs (normalize and
scale_shift, x * 2 + 1 over 64M floats), GB/s of their minimum traffic
(every input read once, every output written once) as a fraction of the
copy bandwidth measured in the same run on the same number of bytes.
Must run under /usr/bin/python3 (the interpreter with torch).
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (tensor inputs {name: shape or [shapes]}, scalar inputs {name: value})
EXAMPLES = {
    "normalize": ({"src": (800, 1333, 3)}, {"mean": 0.5, "scale": 2.0}),
    "softmax": ({"x": (64, 1000)}, {}),
    "layernorm": ({"x": (64, 768), "weight": (768,), "bias": (768,)}, {"eps": 1e-5}),
    "bbox_decode": ({"anchors": [(1200, 4), (300, 4), (75, 4)],
                     "deltas": [(1200, 4), (300, 4), (75, 4)]},
                    {"width": 640.0, "height": 480.0}),
    "lstm": ({"x": (8, 4, 32), "w_ih": (2, 128, 32), "w_hh": (2, 128, 32), "b": (2, 128),
              "state_h": (2, 4, 32), "state_c": (2, 4, 32)}, {}),
}
# Programs whose time is bound by memory traffic (no reuse of data in cache).
MEMORY_BOUND = ["normalize", "scale_shift"]
SCALE_SHIFT_FLOATS = 64 * 1024 * 1024


def load_function(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def make_inputs(tensors, rng):
    def one(shape):
        return (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)
    return {k: [one(s) for s in v] if isinstance(v, list) else one(v) for k, v in tensors.items()}


def write_npz(path, arrays):
    flat = {}
    for k, v in arrays.items():
        if isinstance(v, list):
            for i, a in enumerate(v):
                flat[f"{k}_{i}"] = a
        else:
            flat[k] = v
    np.savez(path, **flat)


def nbytes(arrays):
    return sum(sum(a.nbytes for a in v) if isinstance(v, list) else v.nbytes for v in arrays.values())


def time_torch(fn, args, reps):
    for _ in range(10):
        fn(*args)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3


def run_json(cmd, env):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout)


def stitch(args, program, npz, scalars, extra, env):
    cmd = [args.stitch, "run", program, "--inputs", npz, "--threads", str(args.threads), "--json", *extra]
    for k, v in scalars.items():
        cmd += ["--input", f"{k}={v}"]
    return run_json(cmd, env)


def copy_gbps(args, floats, env):
    out = run_json([args.copy_bandwidth, str(floats), str(args.reps), str(args.threads)], env)
    return out["loop_gbps"]["median"], out["memcpy_gbps"]["median"]


def bench_program(args, name, program, tensors, scalars, rng, env, tmp):
    arrays = make_inputs(tensors, rng)
    npz = os.path.join(tmp, f"{name}.npz")
    write_npz(npz, arrays)
    checked = stitch(args, program, npz, scalars, ["--check"], env)
    if not checked["check"]["ok"]:
        sys.exit(f"{name}: compiled result differs from the interpreter")
    ours = stitch(args, program, npz, scalars, ["--bench", str(args.reps)], env)
    fn = load_function(program, name)
    targs = []
    for k in list(tensors) + list(scalars):
        v = arrays[k] if k in arrays else scalars[k]
        if isinstance(v, list):
            targs.append([torch.from_numpy(a) for a in v])
        elif isinstance(v, np.ndarray):
            targs.append(torch.from_numpy(v))
        else:
            targs.append(v)
    eager = time_torch(fn, targs, args.reps)
    scripted = time_torch(torch.jit.script(fn), targs, args.reps)
    with torch.no_grad():
        result = fn(*[([t.clone() for t in a] if isinstance(a, list) else
                       a.clone() if isinstance(a, torch.Tensor) else a) for a in targs])
    traffic = nbytes(arrays) + result.numel() * result.element_size()
    return {"name": name, "ours": ours["time_ms"]["median"], "kernels": ours["kernels"],
            "eager": eager, "script": scripted, "bytes": traffic}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--copy-bandwidth", required=True)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, STITCH_CACHE_DIR=os.path.join(tmp, "cache"))
        for name, (tensors, scalars) in EXAMPLES.items():
            program = os.path.join(ROOT, "examples", f"{name}.py")
            rows.append(bench_program(args, name, program, tensors, scalars, rng, env, tmp))
        program = os.path.join(ROOT, "bench", "programs", "scale_shift.py")
        rows.append(bench_program(args, "scale_shift", program, {"x": (SCALE_SHIFT_FLOATS,)}, {},
                                  rng, env, tmp))
        bandwidth = {}
        for r in rows:
            if r["name"] in MEMORY_BOUND:
                bandwidth[r["name"]] = copy_gbps(args, r["bytes"] // 8, env)

    print(f"threads {args.threads}, median of {args.reps} runs, same inputs (seed {args.seed})\n")
    print("| program | stitch ms | kernel calls | eager ms | TorchScript ms | speed-up vs faster peer |")
    print("|---|---:|---:|---:|---:|---:|")
    logs = []
    for r in rows:
        peer = min(r["eager"], r["script"])
        speedup = peer / r["ours"]
        if r["name"] in EXAMPLES:
            logs.append(np.log(speedup))
        print(f"| {r['name']} | {r['ours']:.3f} | {r['kernels']} | {r['eager']:.3f} | {r['script']:.3f} | "
              f"{speedup:.2f}x |")
    print(f"\ngeomean speed-up over the examples vs the faster peer: {np.exp(np.mean(logs)):.2f}x\n")
    print("| memory-bound program | MB moved | stitch GB/s | copy loop GB/s | memcpy GB/s | of copy loop | of memcpy |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["name"] not in bandwidth:
            continue
        loop, memcpy = bandwidth[r["name"]]
        gbps = r["bytes"] / (r["ours"] / 1e3) / 1e9
        print(f"| {r['name']} | {r['bytes'] / 1e6:.1f} | {gbps:.1f} | {loop:.1f} | {memcpy:.1f} | "
              f"{gbps / loop:.0%} | {gbps / memcpy:.0%} |")


if __name__ == "__main__":
    main()
