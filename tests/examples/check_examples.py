"""Runs examples/*.py in PyTorch and through `stitch run` on the same fresh
random inputs and checks that they agree (rtol 1e-4, atol 1e-5). With
--mode interp (the default) at each stage (parsed, functional, simplified);
with --mode compiled through the whole pipeline, where `--json` must report
kernel calls. `--json` must report no mutating op (in-place or view op)
after functional; every run passes --check (the reference interpreter).

    check_examples.py --stitch build/tools/stitch/stitch --examples examples [--only NAME] [--seed S]
                      [--mode interp|compiled]

--device cuda runs the compiled examples' kernels on the GPU. --cuda-code
CHECKER runs nothing: each example's CUDA code (`stitch dump --stage code
--device cuda`) must compile with NVRTC, optimized, for sm_80 and sm_90
(CHECKER is tests/cuda/cuda_compile_check; its exit 77, no NVRTC, skips).

Tensors go to stitch in an .npz (a List[Tensor] parameter NAME as members
NAME_0, NAME_1, ...), scalars as --input NAME=VALUE. Exit 0 when every
example agrees, 1 on a mismatch or a stitch failure, 77 when PyTorch or
numpy is missing (ctest reports that as skipped).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: {e} (install python3-torch and python3-numpy)")
    sys.exit(77)

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tolerance import close_mask  # noqa: E402


def f32(a):
    return np.ascontiguousarray(a, dtype=np.float32)


# Each maker returns the entry function's arguments by name, in order.
def normalize_inputs(rng):
    return {
        "src": f32(rng.uniform(0, 255, size=(32, 48, 3))),
        "mean": float(rng.uniform(50, 200)),
        "scale": float(rng.uniform(0.001, 0.1)),
    }


def softmax_inputs(rng):
    return {"x": f32(rng.standard_normal((16, 37)) * 5)}


def layernorm_inputs(rng):
    return {
        "x": f32(rng.standard_normal((8, 64)) * 2 + 0.5),
        "weight": f32(rng.uniform(0.5, 1.5, size=64)),
        "bias": f32(rng.standard_normal(64) * 0.1),
        "eps": 1e-5,
    }


def bbox_decode_inputs(rng):
    width, height = 320.0, 240.0
    anchors, deltas = [], []
    for stride, count in ((8, 48), (16, 12), (32, 3)):
        cx = rng.uniform(0, width / stride, size=count)
        cy = rng.uniform(0, height / stride, size=count)
        wh = rng.uniform(0.5, 4.0, size=(count, 2))
        anchors.append(f32(np.column_stack([cx, cy, wh])))
        deltas.append(f32(rng.standard_normal((count, 4)) * 0.5))
    return {"anchors": anchors, "deltas": deltas, "width": width, "height": height}


def lstm_inputs(rng):
    seq, batch, hidden, layers = 8, 4, 32, 2
    return {
        "x": f32(rng.standard_normal((seq, batch, hidden))),
        "w_ih": f32(rng.standard_normal((layers, 4 * hidden, hidden)) * 0.2),
        "w_hh": f32(rng.standard_normal((layers, 4 * hidden, hidden)) * 0.2),
        "b": f32(rng.standard_normal((layers, 4 * hidden)) * 0.1),
        "state_h": f32(rng.standard_normal((layers, batch, hidden)) * 0.5),
        "state_c": f32(rng.standard_normal((layers, batch, hidden)) * 0.5),
    }


EXAMPLES = {
    "normalize": normalize_inputs,
    "softmax": softmax_inputs,
    "layernorm": layernorm_inputs,
    "bbox_decode": bbox_decode_inputs,
    "lstm": lstm_inputs,
}


def load_function(path, name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def to_torch(value):
    if isinstance(value, list):
        return [to_torch(v) for v in value]
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    return value


def flatten(result, out):
    if isinstance(result, (list, tuple)):
        for r in result:
            flatten(r, out)
    elif isinstance(result, torch.Tensor):
        out.append(result.detach().numpy())
    else:
        out.append(np.asarray(result))
    return out


def stitch_arguments(inputs, npz_path):
    arrays, flags = {}, []
    for name, value in inputs.items():
        if isinstance(value, list):
            for i, v in enumerate(value):
                arrays[f"{name}_{i}"] = v
        elif isinstance(value, np.ndarray):
            arrays[name] = value
        else:
            flags += ["--input", f"{name}={value!r}"]
    np.savez(npz_path, **arrays)
    return ["--inputs", npz_path] + flags


STAGES = ("parsed", "functional", "simplified")
SPEC_DTYPES = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "bool"}


def type_arguments(inputs):
    """--input NAME=SPEC giving each input's type (stitch dump takes no data)."""
    def spec(a):
        return f"{SPEC_DTYPES[str(a.dtype)]}[{','.join(str(d) for d in a.shape)}]"
    flags = []
    for name, value in inputs.items():
        if isinstance(value, list):
            text = "[" + ",".join(spec(v) for v in value) + "]"
        elif isinstance(value, np.ndarray):
            text = spec(value)
        else:
            text = repr(value)
        flags += ["--input", f"{name}={text}"]
    return flags


def check_cuda_code(name, stitch, examples_dir, seed, checker):
    path = os.path.join(examples_dir, f"{name}.py")
    inputs = EXAMPLES[name](np.random.default_rng(seed))
    cmd = [stitch, "dump", path, "--stage", "code", "--device", "cuda"] + type_arguments(inputs)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL {name} [cuda code]: stitch dump exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
        return False
    with tempfile.TemporaryDirectory() as tmp:
        cu = os.path.join(tmp, f"{name}.cu")
        with open(cu, "w") as f:
            f.write(proc.stdout)
        check = subprocess.run([checker, cu], capture_output=True, text=True)
    if check.returncode == 77:
        print(check.stdout.strip())
        sys.exit(77)
    ok = check.returncode == 0
    print(f"{'ok  ' if ok else 'FAIL'} {name} [cuda code]: {check.stdout.strip() or check.stderr.strip()}")
    return ok


def check_stage_counts(name, stage, report):
    stages = report.get("stages", {})
    if stage not in stages:
        print(f"FAIL {name} [{stage}]: --json reports no stage {stage}: {sorted(stages)}")
        return False
    counts = {s: stages[s] for s in STAGES if s in stages}
    print(f"     {name} [{stage}] op counts {json.dumps(counts)}")
    for s in ("functional", "simplified"):
        if s in stages and stages[s]["mutating_ops"] != 0:
            print(f"FAIL {name} [{stage}]: {stages[s]['mutating_ops']} mutating ops after {s}")
            return False
    return True


def check_example(name, stitch, examples_dir, seed, mode, device="cpu"):
    if mode == "compiled":
        return check_example_at(name, stitch, examples_dir, seed, None, device)
    return all([check_example_at(name, stitch, examples_dir, seed, stage) for stage in STAGES])


# Examples whose shapes are not static: the list elements of bbox_decode
# differ in length, so every op keeps an unknown dim and runs on the host.
NO_STATIC_SHAPES = {"bbox_decode"}


def check_compiled_report(name, report):
    least = 0 if name in NO_STATIC_SHAPES else 1
    if report.get("mode") != "compiled" or not isinstance(report.get("kernels"), int) \
            or report["kernels"] < least:
        print(f"FAIL {name} [compiled]: --json reports mode {report.get('mode')!r}, "
              f"kernels {report.get('kernels')!r} (expected compiled, >= {least})")
        return False
    compile_info = report.get("compile", {})
    print(f"     {name} [compiled] {report['kernels']} kernel calls per run, compile "
          f"{json.dumps(compile_info)}")
    return True


def check_example_at(name, stitch, examples_dir, seed, stage, device="cpu"):
    """stage None: compiled mode (on `device`)."""
    path = os.path.join(examples_dir, f"{name}.py")
    rng = np.random.default_rng(seed)
    inputs = EXAMPLES[name](rng)
    expected = flatten(load_function(path, name)(**{k: to_torch(v) for k, v in inputs.items()}), [])

    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.npz")
        # --check also interprets the graph before shape specialization and
        # fails on a difference: every example checks that pass too.
        mode_args = ["--mode", "compiled", "--device", device] if stage is None else \
            ["--mode", "interp", "--stage", stage]
        cmd = [stitch, "run", path] + mode_args + ["--check", "--json", "--outputs", out_path]
        stage = stage or "compiled"
        cmd += stitch_arguments(inputs, os.path.join(tmp, "in.npz"))
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL {name} [{stage}]: stitch exited {proc.returncode}\n  {' '.join(cmd)}")
            print(proc.stdout + proc.stderr)
            return False
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            print(f"FAIL {name} [{stage}]: --json did not print one JSON object\n{proc.stdout}")
            return False
        if stage == "compiled":
            if not check_compiled_report(name, report) or not check_stage_counts(name, "simplified", report):
                return False
        elif not check_stage_counts(name, stage, report):
            return False
        with np.load(out_path) as f:
            got = [f[f"out{i}"] for i in range(len(f.files))]
        name = f"{name} [{stage}]"

    if len(got) != len(expected):
        print(f"FAIL {name}: stitch gave {len(got)} outputs, PyTorch {len(expected)}")
        return False
    ok = True
    for i, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape or g.dtype != e.dtype:
            print(f"FAIL {name} out{i}: stitch {g.dtype}{list(g.shape)}, PyTorch {e.dtype}{list(e.shape)}")
            ok = False
            continue
        err = float(np.max(np.abs(g.astype(np.float64) - e.astype(np.float64)))) if g.size else 0.0
        close = bool(close_mask(g, e).all()) if e.dtype.kind == "f" else bool(np.array_equal(g, e))
        print(f"{'ok  ' if close else 'FAIL'} {name} out{i}: {g.dtype}{list(g.shape)} max abs err {err:.3g}")
        ok &= bool(close)
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stitch", required=True, help="the stitch binary")
    parser.add_argument("--examples", required=True, help="the examples folder")
    parser.add_argument("--only", action="append", help="check only this example (repeatable)")
    parser.add_argument("--seed", type=int, help="reuse a seed printed by an earlier run")
    parser.add_argument("--mode", default="interp", choices=("interp", "compiled"),
                        help="stitch run --mode (interp: every stage; compiled: the whole pipeline)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="with --mode compiled: stitch run --device")
    parser.add_argument("--cuda-code", metavar="CHECKER",
                        help="run nothing: compile each example's CUDA code with CHECKER")
    args = parser.parse_args()
    if args.device != "cpu" and args.mode != "compiled":
        parser.error("--device applies to --mode compiled")

    names = args.only or list(EXAMPLES)
    unknown = [n for n in names if n not in EXAMPLES]
    if unknown:
        print(f"unknown example(s): {', '.join(unknown)}; known: {', '.join(EXAMPLES)}")
        return 2
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed} (rerun with --seed {seed})")
    if args.cuda_code:
        results = [check_cuda_code(n, args.stitch, args.examples, seed, args.cuda_code) for n in names]
    else:
        results = [check_example(n, args.stitch, args.examples, seed, args.mode, args.device) for n in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
