#!/usr/bin/env python3
"""The workloads and a memory-bound elementwise program on a CUDA GPU, next
to PyTorch on the same GPU and inputs.

    python3 bench/gpu/run_gpu.py --stitch PATH [--reps 20] [--only NAME]... [--compile] [--json]
    STITCH_CUDA_EMULATOR=1 python3 bench/gpu/run_gpu.py --stitch PATH --counts

Per program: `stitch run --device cuda --bench` (checked first with --check
against the interpreter, on a third run: where the run can be recorded as
a CUDA graph, the replay's outputs), PyTorch eager on CUDA tensors, and with --compile
torch.compile and torch.compile(mode="reduce-overhead"); medians of --reps
runs after warm-up, each timed to the GPU's completion. The roof is the
program's minimum bytes (bench/workloads/catalog.py) over the device's copy
bandwidth, measured in this run (a 1 GiB device-to-device copy, bytes read
plus written). stitch's time includes moving the inputs to the device and
the outputs back, and every host sync in between.

--counts runs each workload three times through the CUDA path, checks the
third run and prints its kernel launches (a graph replay is one, and the
kernels in the graph are shown) and host syncs: on the CUDA emulator it
needs no GPU (elementwise_large only with --only).
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

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKLOADS_DIR = os.path.join(ROOT, "bench", "workloads")
sys.path[:0] = [WORKLOADS_DIR, os.path.join(ROOT, "bench"), os.path.join(ROOT, "tests", "differential")]
from catalog import WORKLOADS, shapes  # noqa: E402
from fusion_bench import write_npz  # noqa: E402
from run_differential import make_input, scalar_literal  # noqa: E402

F32 = 4
LARGE = 1 << 26  # elements per tensor of elementwise_large: 256 MiB each, past any L2
PROGRAMS = dict((name, {"dir": WORKLOADS_DIR, "inputs": w["inputs"],
                        "bytes": lambda w=w: w["counts"](shapes(w["inputs"]))[1]})
                for name, w in WORKLOADS.items())
PROGRAMS["elementwise_large"] = {"dir": HERE, "inputs": {a: ("f32", [LARGE]) for a in "xyz"},
                                 "bytes": lambda: 4 * F32 * LARGE}


def inputs_of(name, seed):
    rng = np.random.default_rng(seed)
    return {k: make_input(s, rng) for k, s in PROGRAMS[name]["inputs"].items()}


def load_function(name):
    path = os.path.join(PROGRAMS[name]["dir"], name + ".py")
    spec = importlib.util.spec_from_file_location("gpu_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def cuda_args(inputs):
    def one(v):
        if isinstance(v, list):
            return [one(a) for a in v]
        return torch.from_numpy(v.copy()).cuda() if isinstance(v, np.ndarray) else v
    return [one(v) for v in inputs.values()]


def time_cuda(fn, args, reps):
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def copy_bandwidth(reps):
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    ms = time_cuda(lambda: dst.copy_(src), [], reps)
    return 2 * src.numel() * F32 / (ms * 1e-3) / 1e9


def run_stitch(args, name, inputs, tmp, extra):
    npz = os.path.join(tmp, name + ".npz")
    write_npz(npz, {k: v for k, v in inputs.items() if not np.isscalar(v)})
    cmd = [args.stitch, "run", os.path.join(PROGRAMS[name]["dir"], name + ".py"), "--fn", name,
           "--device", "cuda", "--inputs", npz, "--json", *extra]
    for k, v in inputs.items():
        if np.isscalar(v):
            cmd += ["--input", "%s=%s" % (k, scalar_literal(v))]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("stitch exited %d: %s" % (proc.returncode, (proc.stderr or proc.stdout).strip()[-400:]))
    return json.loads(proc.stdout)


def bench(args, name, gbps, tmp):
    inputs = inputs_of(name, args.seed)
    row = {"program": name}
    try:
        # Three runs, the third a replay of the graph the second recorded
        # where the run could be recorded: the outputs checked are its.
        checked = run_stitch(args, name, inputs, tmp, ["--check", "--bench", "2"])
        row["check_ok"] = checked["check"]["ok"]
        row["max_abs_err"] = checked["check"]["max_abs_err"]
        timed = run_stitch(args, name, inputs, tmp, ["--bench", str(args.reps)])
        row.update(stitch_ms=timed["time_ms"]["median"], launches=timed["kernels"],
                   host_syncs=timed["host_syncs"], device=timed["device"])
    except RuntimeError as e:
        row["stitch_error"] = str(e)
    fn = load_function(name)
    cargs = cuda_args(inputs)
    row["eager_ms"] = time_cuda(fn, cargs, args.reps)
    if args.compile:
        for label, make in (("compile_ms", lambda f: torch.compile(f)),
                            ("compile_ro_ms", lambda f: torch.compile(f, mode="reduce-overhead"))):
            try:
                row[label] = time_cuda(make(load_function(name)), cuda_args(inputs), args.reps)
            except Exception as e:  # a peer that cannot run it leaves its cell empty
                row[label + "_error"] = str(e).splitlines()[0][:200]
    nbytes = PROGRAMS[name]["bytes"]()
    row["min_bytes"] = nbytes
    if "stitch_ms" in row:
        row["stitch_of_bandwidth"] = nbytes / (row["stitch_ms"] * 1e-3) / 1e9 / gbps
    row["eager_of_bandwidth"] = nbytes / (row["eager_ms"] * 1e-3) / 1e9 / gbps
    return row


def counts(args):
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or sorted(set(PROGRAMS) - {"elementwise_large"}):
            d = run_stitch(args, name, inputs_of(name, args.seed), tmp, ["--check", "--bench", "2"])
            print("%-20s %4d launches (%d in a graph) %4d host syncs, check %s (%s)"
                  % (name, d["kernels"], d["graph_kernels"], d["host_syncs"],
                     "ok" if d["check"]["ok"] else "FAILED", d["device"]), flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", action="append", choices=sorted(PROGRAMS))
    parser.add_argument("--compile", action="store_true", help="also torch.compile (default and reduce-overhead)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--counts", action="store_true", help="launches and host syncs per workload, checked")
    args = parser.parse_args()
    if args.counts:
        return counts(args)
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no CUDA GPU")
        return 77
    gbps = copy_bandwidth(args.reps)
    print("device %s, copy bandwidth %.0f GB/s (1 GiB device-to-device, read + written)"
          % (torch.cuda.get_device_name(), gbps), flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or sorted(PROGRAMS):
            rows.append(bench(args, name, gbps, tmp))
            r = rows[-1]
            print("%-20s stitch %s ms (%s launches, %s syncs, check %s) eager %.3f ms%s%s | of bandwidth: stitch %s eager %.1f%%"
                  % (name, "%.3f" % r["stitch_ms"] if "stitch_ms" in r else "-", r.get("launches", "-"),
                     r.get("host_syncs", "-"), r.get("check_ok", "-"), r["eager_ms"],
                     " compile %.3f" % r["compile_ms"] if "compile_ms" in r else "",
                     " reduce-overhead %.3f" % r["compile_ro_ms"] if "compile_ro_ms" in r else "",
                     "%.1f%%" % (100 * r["stitch_of_bandwidth"]) if "stitch_of_bandwidth" in r else "-",
                     100 * r["eager_of_bandwidth"]), flush=True)
            if "stitch_error" in r:
                print("    stitch: %s" % r["stitch_error"], flush=True)
    if args.json:
        print(json.dumps({"copy_gbps": gbps, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
