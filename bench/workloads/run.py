#!/usr/bin/env python3
"""The workloads side by side: stitch, the PyTorch peers, and their roofs.

    /usr/bin/python3 bench/workloads/run.py [--threads 2] [--reps 30] [--only NAME]...
        [--stitch PATH] [--copy-bandwidth PATH] [--fma-peak PATH]
        [--peers-python bench/venv-peers/bin/python] [--json]

Paths default to the build-bench/ binaries. Per workload (catalog.py), on
the same seeded inputs and thread count:
  * stitch run --bench (checked first: --check against the interpreter,
    and its outputs against eager PyTorch's);
  * the peers of the torch this script runs under: eager and
    torch.jit.script, and torch.compile where torch has it; with
    --peers-python, also that interpreter's peers (this script run there
    with --peers-only), so one run under /usr/bin/python3 with
    --peers-python bench/venv-peers/bin/python covers Debian's torch 1.13
    and PyPI's 2.x;
  * the roof: max(flops / FMA peak, bytes / copy bandwidth), the FMA peak
    from fma_peak and the copy bandwidth (the plain copy loop) from
    copy_bandwidth on as many bytes as the workload's minimum traffic, both
    measured in this run, best of --reps runs.
Times are medians of --reps runs after warm-up. stitch and the roofs run
before any peer: PyTorch's OpenMP workers, once woken, keep spinning on
the cores the others need.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import traceback
import warnings
import zlib

import numpy as np
import torch

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "bench"), os.path.join(ROOT, "tests", "differential")]
from catalog import WORKLOADS, shapes  # noqa: E402
from fusion_bench import run_json, time_torch, write_npz  # noqa: E402
from run_differential import CaseFailure, compare, flatten_result, make_input, scalar_literal  # noqa: E402

# Long sums (K = 768) and 50 recurrent steps drift further than the
# differential suite's small cases.
OUTPUT_TOL = (1e-3, 1e-4)
TORCH = "torch " + ".".join(torch.__version__.split(".")[:2])
# PyTorch 2.x deprecates TorchScript; it stays a peer, without the warning per workload.
warnings.filterwarnings("ignore", message=".*torch.jit.script.*deprecated")


def make_inputs(name, seed):
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    return {k: make_input(spec, rng) for k, spec in WORKLOADS[name]["inputs"].items()}


def torch_args(inputs):
    def one(v):
        if isinstance(v, list):
            return [one(a) for a in v]
        return torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v
    return [one(v) for v in inputs.values()]


def load_function(name):
    spec = importlib.util.spec_from_file_location("workload_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def run_stitch(args, name, inputs, tmp, env, extra):
    npz = os.path.join(tmp, name + ".npz")
    write_npz(npz, {k: v for k, v in inputs.items() if not np.isscalar(v)})
    cmd = [args.stitch, "run", os.path.join(HERE, name + ".py"), "--fn", name, "--inputs", npz,
           "--threads", str(args.threads), "--json", *extra]
    for k, v in inputs.items():
        if np.isscalar(v):
            cmd += ["--input", "%s=%s" % (k, scalar_literal(v))]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()
        raise CaseFailure("stitch exited %d: %s" % (proc.returncode, lines[-1]))
    return json.loads(proc.stdout)


def bench_stitch(args, name, inputs, tmp, env):
    out = os.path.join(tmp, name + ".out.npz")
    checked = run_stitch(args, name, inputs, tmp, env, ["--check", "--outputs", out])
    if not checked["check"]["ok"]:
        raise CaseFailure("compiled result differs from the interpreter")
    timed = run_stitch(args, name, inputs, tmp, env, ["--bench", str(args.reps)])
    with np.load(out) as data:
        outputs = [data["out%d" % i] for i in range(len(data.files))]
    row = {"stitch_ms": timed["time_ms"]["median"], "kernels": timed["kernels"]}
    if "host_loop" in timed:
        row["host_us_per_iteration"] = timed["host_loop"]["us_per_iteration"]
        row["host_iterations"] = timed["host_loop"]["iterations"]
    return row, outputs


def peer_makers():
    makers = {"eager": lambda fn: fn, "TorchScript": torch.jit.script}
    if hasattr(torch, "compile"):
        makers["torch.compile"] = torch.compile
    return makers


def bench_peers(args, name):
    inputs = make_inputs(name, args.seed)
    times = {}
    for peer, make in peer_makers().items():
        try:
            fn = make(load_function(name))
            times["%s %s" % (peer, TORCH)] = time_torch(fn, torch_args(inputs), args.reps)
        except Exception:  # a peer that cannot run a workload leaves its cell empty
            print("%s: %s failed:\n%s" % (name, peer, traceback.format_exc()), file=sys.stderr)
    return times


def other_peers(args, names):
    cmd = [args.peers_python, os.path.abspath(__file__), "--peers-only", "--threads",
           str(args.threads), "--reps", str(args.reps), "--seed", str(args.seed)]
    for name in names:
        cmd += ["--only", name]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit("%s failed (%d)" % (" ".join(cmd), proc.returncode))
    return json.loads(proc.stdout)


def roof(args, name, env):
    flops, nbytes = WORKLOADS[name]["counts"](shapes(WORKLOADS[name]["inputs"]))
    copy = run_json([args.copy_bandwidth, str(max(nbytes // 8, 1024)), str(args.reps),
                     str(args.threads)], env)
    gbps = copy["loop_gbps"]["best"]
    compute_ms, memory_ms = flops / args.peak_gflops / 1e6, nbytes / gbps / 1e6
    return {"gflop": flops / 1e9, "mb": nbytes / 1e6, "copy_gbps": gbps,
            "roof_ms": max(compute_ms, memory_ms),
            "bound": "compute" if compute_ms > memory_ms else "memory"}


def run_all(args, names):
    rows = {name: {} for name in names}
    outputs = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, STITCH_CACHE_DIR=os.path.join(tmp, "cache"))
        for name in names:
            try:
                timing, outputs[name] = bench_stitch(args, name, make_inputs(name, args.seed), tmp, env)
                rows[name].update(timing)
            except CaseFailure as e:
                rows[name]["error"] = str(e)
        # A roof is what the machine can do: the best run, not the median.
        args.peak_gflops = run_json([args.fma_peak, str(args.threads), str(args.reps)],
                                    env)["gflops"]["best"]
        for name in names:
            rows[name].update(roof(args, name, env))
    if args.peers_python:
        for name, times in other_peers(args, names).items():
            rows[name].update(times)
    for name in names:
        if name in outputs:
            try:
                reference = load_function(name)(*torch_args(make_inputs(name, args.seed)))
                compare(flatten_result(reference, []), outputs[name], OUTPUT_TOL)
            except CaseFailure as e:
                rows[name]["error"] = "differs from eager PyTorch: %s" % e
        rows[name].update(bench_peers(args, name))
    return rows


def peer_columns(rows):
    order = {"eager": 0, "TorchScript": 1, "torch.compile": 2}
    keys = {k for r in rows.values() for k in r if " torch " in k}
    return sorted(keys, key=lambda k: (k.split(" torch ")[1], order[k.split(" torch ")[0]]))


def fmt(value, digits=3):
    return "—" if value is None else "%.*f" % (digits, value)


def print_table(args, rows):
    peers = peer_columns(rows)
    print("threads %d, median of %d runs, the same seeded inputs (seed %d); FMA peak %.0f GFLOPS "
          "on %d threads\n" % (args.threads, args.reps, args.seed, args.peak_gflops, args.threads))
    print("| workload | stitch ms | kernel calls | %s | best peer / stitch | GFLOP | MB "
          "| roof ms | bound | of roof |" % " | ".join(p + " ms" for p in peers))
    print("|---|" + "---:|" * (len(peers) + 8))
    logs = []
    for name, r in rows.items():
        if "error" in r:
            print("| %s | error: %s |" % (name, r["error"]))
            continue
        times = [r.get(p) for p in peers]
        known = [t for t in times if t is not None]
        speedup = min(known) / r["stitch_ms"] if known else None
        if speedup:
            logs.append(np.log(speedup))
        print("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt(r["stitch_ms"]), r["kernels"], " | ".join(fmt(t) for t in times),
            fmt(speedup, 2) + "x" if speedup else "—", fmt(r["gflop"], 4), fmt(r["mb"], 2),
            fmt(r["roof_ms"]), r["bound"], "%.0f%%" % (100 * r["roof_ms"] / r["stitch_ms"])))
    if logs:
        print("\ngeomean of best peer / stitch: %.2fx" % np.exp(np.mean(logs)))
    host = ["%s %.2f us x %d" % (name, r["host_us_per_iteration"], r["host_iterations"])
            for name, r in rows.items() if "host_us_per_iteration" in r]
    if host:
        print("host loop steps, time per iteration beyond the kernels (median): " + "; ".join(host))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    build = os.path.join(ROOT, "build-bench")
    parser.add_argument("--stitch", default=os.path.join(build, "tools", "stitch", "stitch"))
    parser.add_argument("--copy-bandwidth", default=os.path.join(build, "bench", "copy_bandwidth"))
    parser.add_argument("--fma-peak", default=os.path.join(build, "bench", "fma_peak"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", action="append", choices=sorted(WORKLOADS),
                        help="run only this workload (repeatable)")
    parser.add_argument("--peers-python",
                        help="another Python with torch: its peers join the table")
    parser.add_argument("--peers-only", action="store_true",
                        help="time this interpreter's peers only; print JSON (for --peers-python)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    names = [n for n in WORKLOADS if not args.only or n in args.only]
    if args.peers_only:
        print(json.dumps({name: bench_peers(args, name) for name in names}))
        return
    rows = run_all(args, names)
    if args.json:
        print(json.dumps({"threads": args.threads, "reps": args.reps, "seed": args.seed,
                          "fma_peak_gflops": args.peak_gflops, "workloads": rows}, indent=1))
    else:
        print_table(args, rows)
    return 1 if any("error" in r for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
