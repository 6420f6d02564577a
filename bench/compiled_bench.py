#!/usr/bin/env python3
"""Compiled execution against the reference interpreter, the copy-bandwidth
roof for a large elementwise kernel, and compile times.

    bench/compiled_bench.py --stitch build/tools/stitch/stitch \
        --copy-bandwidth build-bench/bench/copy_bandwidth [--reps 20] [--threads 2]

Prints one markdown report:
  * every example: median time interpreted and compiled (same inputs, same
    seed, --threads), the speed-up, kernel calls per run;
  * cold compile (empty cache: render + compile + load) and warm compile
    (a second process: load from the disk cache) per example;
  * scale_shift (x * 2 + 1 over 64M floats, one fused kernel): GB/s moved
    (256 MiB read + 256 MiB written) as a fraction of the copy bandwidth
    measured in the same run (memcpy and a plain copy loop).
Every compiled run uses --check once beforehand, so a wrong result fails the
benchmark instead of producing a figure.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXAMPLES = {
    "normalize": ["--input", "src=f32[800,1333,3]", "--input", "mean=0.5", "--input", "scale=2"],
    "softmax": ["--input", "x=f32[64,1000]"],
    "layernorm": ["--input", "x=f32[64,768]", "--input", "weight=f32[768]",
                  "--input", "bias=f32[768]", "--input", "eps=1e-5"],
    "bbox_decode": ["--input", "anchors=[f32[1200,4],f32[300,4],f32[75,4]]",
                    "--input", "deltas=[f32[1200,4],f32[300,4],f32[75,4]]",
                    "--input", "width=640", "--input", "height=480"],
    "lstm": ["--input", "x=f32[8,4,32]", "--input", "w_ih=f32[2,128,32]",
             "--input", "w_hh=f32[2,128,32]", "--input", "b=f32[2,128]",
             "--input", "state_h=f32[2,4,32]", "--input", "state_c=f32[2,4,32]"],
}

ELEMENTWISE_FLOATS = 64 * 1024 * 1024


def run_json(cmd, env):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return json.loads(proc.stdout)


def stitch_run(args, program, inputs, mode, extra, env):
    cmd = [args.stitch, "run", program, *inputs, "--mode", mode, "--threads",
           str(args.threads), "--seed", "7", "--json", *extra]
    return run_json(cmd, env)


def bench_examples(args, env):
    rows = []
    for name, inputs in EXAMPLES.items():
        program = os.path.join(ROOT, "examples", f"{name}.py")
        cold = stitch_run(args, program, inputs, "compiled", ["--check"], env)
        if not cold["check"]["ok"]:
            sys.exit(f"{name}: compiled result differs from the interpreter")
        warm = stitch_run(args, program, inputs, "compiled", [], env)
        compiled = stitch_run(args, program, inputs, "compiled", ["--bench", str(args.reps)], env)
        interp = stitch_run(args, program, inputs, "interp", ["--bench", str(args.reps)], env)
        rows.append({
            "name": name,
            "interp_ms": interp["time_ms"]["median"],
            "compiled_ms": compiled["time_ms"]["median"],
            "kernels": compiled["kernels"],
            "cold": cold["compile"], "warm": warm["compile"],
        })
    return rows


def bench_elementwise(args, env):
    program = os.path.join(ROOT, "bench", "programs", "scale_shift.py")
    inputs = ["--input", f"x=f32[{ELEMENTWISE_FLOATS}]"]
    check = stitch_run(args, program, inputs, "compiled", ["--check"], env)
    if not check["check"]["ok"]:
        sys.exit("scale_shift: compiled result differs from the interpreter")
    copy = run_json([args.copy_bandwidth, str(ELEMENTWISE_FLOATS), str(args.reps),
                     str(args.threads)], env)
    run = stitch_run(args, program, inputs, "compiled", ["--bench", str(args.reps)], env)
    copy_after = run_json([args.copy_bandwidth, str(ELEMENTWISE_FLOATS), str(args.reps),
                           str(args.threads)], env)
    bytes_moved = 2 * 4 * ELEMENTWISE_FLOATS
    gbps = bytes_moved / (run["time_ms"]["median"] / 1e3) / 1e9
    best = bytes_moved / (run["time_ms"]["min"] / 1e3) / 1e9
    memcpy = (copy["memcpy_gbps"]["median"] + copy_after["memcpy_gbps"]["median"]) / 2
    loop = (copy["loop_gbps"]["median"] + copy_after["loop_gbps"]["median"]) / 2
    return {"gbps": gbps, "best_gbps": best, "median_ms": run["time_ms"]["median"],
            "kernels": run["kernels"], "memcpy": memcpy, "loop": loop}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--copy-bandwidth", required=True)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, STITCH_CACHE_DIR=cache)
        rows = bench_examples(args, env)
        ew = bench_elementwise(args, env)

    print(f"threads {args.threads}, median of {args.reps} runs\n")
    print("| example | interp ms | compiled ms | speed-up | kernel calls | cold compile ms | warm compile ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['name']} | {r['interp_ms']:.3f} | {r['compiled_ms']:.3f} | "
              f"{r['interp_ms'] / r['compiled_ms']:.2f}x | {r['kernels']} | "
              f"{r['cold']['ms']:.0f} ({r['cold']['cache']}) | {r['warm']['ms']:.1f} ({r['warm']['cache']}) |")
    print()
    print(f"scale_shift, x * 2 + 1 over {ELEMENTWISE_FLOATS} f32 ({ew['kernels']} kernel call): "
          f"median {ew['median_ms']:.2f} ms = {ew['gbps']:.1f} GB/s (best {ew['best_gbps']:.1f})")
    print(f"copy bandwidth in the same run: memcpy {ew['memcpy']:.1f} GB/s, copy loop {ew['loop']:.1f} GB/s")
    print(f"fraction: {ew['gbps'] / ew['memcpy']:.0%} of memcpy, {ew['gbps'] / ew['loop']:.0%} of the copy loop")


if __name__ == "__main__":
    main()
