"""End-to-end checks of the `stitch` command's own behaviour (not of the
programs it runs): help and version, --json's shape in both modes, dump
stages (graph IR, kernel graph, uops, C), the STITCH_DEBUG pass log, .npz
outputs, the kernel cache across processes (reuse, concurrent compiles, a
truncated entry rebuilt), and the errors for what this version does not
have. Standard library only. Every process gets STITCH_CACHE_DIR in a fresh
temporary folder of this run (the cache tests make their own), so nothing
is written to the user's home and runs do not depend on each other.

    check_cli.py --stitch build/tools/stitch/stitch --examples examples
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

failures = []
# Set in main(): the cache folder of this run, unless a test passes its own.
CACHE_DIR = None


def process_env(env=None):
    full_env = dict(os.environ)
    full_env.pop("STITCH_DEBUG", None)
    full_env["STITCH_CACHE_DIR"] = CACHE_DIR
    full_env.update(env or {})
    return full_env


def run(stitch, args, env=None):
    return subprocess.run([stitch] + args, capture_output=True, text=True, env=process_env(env))


def expect(cond, what, proc=None):
    if cond:
        print(f"ok   {what}")
        return
    detail = f"\n  exit {proc.returncode}\n  stdout: {proc.stdout[-2000:]}\n  stderr: {proc.stderr[-2000:]}" if proc else ""
    print(f"FAIL {what}{detail}")
    failures.append(what)


def check_help(stitch):
    for args in (["--help"], ["run", "--help"], ["dump", "--help"], ["run", "--bogus", "-h"]):
        p = run(stitch, args)
        expect(p.returncode == 0 and p.stdout.startswith("usage: stitch"), f"{' '.join(args)} prints usage", p)
    p = run(stitch, ["--version"])
    expect(p.returncode == 0 and p.stdout.startswith("stitch "), "--version", p)
    p = run(stitch, [])
    expect(p.returncode == 2 and "usage: stitch" in p.stderr, "no command: usage on stderr, exit 2", p)


def check_json(stitch, normalize, seed):
    args = ["run", normalize, "--input", "src=f32[16,20,3]", "--input", "mean=0.5", "--input", "scale=2",
            "--mode", "interp", "--stage", "simplified", "--check", "--bench", "3", "--seed", str(seed),
            "--json"]
    p = run(stitch, args)
    expect(p.returncode == 0, "run --json exits 0", p)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        expect(False, "run --json prints one JSON object", p)
        return
    expect(report["outputs"] == [{"name": "out0", "dtype": "f32", "shape": [16, 20, 3]}], "json outputs", p)
    expect(report["kernels"] == 0, "json kernels (interp launches none)", p)
    t = report["time_ms"]
    expect(0 <= t["min"] <= t["median"] and t["runs"] == 3, "json time_ms median >= min, 3 runs", p)
    expect(report["check"]["ok"] is True and report["check"]["max_abs_err"] == 0, "json check", p)
    stages = report["stages"]
    expect(sorted(stages) == ["functional", "parsed", "simplified"], "json stages up to simplified", p)
    # Normalize writes through two views (a select and a copy_ per channel).
    expect(stages["parsed"]["mutating_ops"] >= 2 and stages["parsed"]["ops"] > 2,
           "json stages.parsed op counts", p)
    expect(stages["functional"]["mutating_ops"] == 0 and stages["simplified"]["mutating_ops"] == 0,
           "json: no mutating ops after functionalize", p)


def parse_json(p, what):
    try:
        return json.loads(p.stdout)
    except ValueError:
        expect(False, what + " prints one JSON object", p)
        return None


def check_json_compiled(stitch, normalize, seed):
    args = ["run", normalize, "--input", "src=f32[16,20,3]", "--input", "mean=0.5", "--input", "scale=2",
            "--check", "--bench", "3", "--seed", str(seed), "--json", "--threads", "2"]
    p = run(stitch, args)
    expect(p.returncode == 0, "run --json (compiled, the default) exits 0", p)
    report = parse_json(p, "run --json (compiled)")
    if report is None:
        return
    expect(report["mode"] == "compiled", "json mode compiled by default", p)
    expect(report["outputs"] == [{"name": "out0", "dtype": "f32", "shape": [16, 20, 3]}],
           "json outputs (compiled)", p)
    expect(isinstance(report["kernels"], int) and report["kernels"] > 0,
           "json kernels > 0 for normalize (compiled)", p)
    t = report["time_ms"]
    expect(0 <= t["min"] <= t["median"] and t["runs"] == 3, "json time_ms (compiled)", p)
    c = report.get("compile", {})
    expect(c.get("cache") in ("memory", "disk", "compiled") and c.get("ms", -1) >= 0
           and c.get("compiler"), "json compile {ms, cache, compiler}", p)
    expect(report["check"]["ok"] is True and report["check"]["max_abs_err"] <= 1e-5,
           "json check against the interpreter (compiled)", p)
    expect(sorted(report["stages"]) == ["functional", "parsed", "simplified"],
           "json stages (compiled)", p)


def compiled_run(stitch, normalize, cache, out, seed=7):
    args = ["run", normalize, "--input", "src=f32[6,7,3]", "--input", "mean=0.25", "--input",
            "scale=3", "--seed", str(seed), "--json", "--outputs", out]
    return run(stitch, args, env={"STITCH_CACHE_DIR": cache})


def output_bytes(path):
    with zipfile.ZipFile(path) as z:
        return z.read("out0.npy")


def check_kernel_cache(stitch, normalize):
    with tempfile.TemporaryDirectory(prefix="stitch-cli-cache-") as tmp:
        cache = os.path.join(tmp, "cache")
        first, second = os.path.join(tmp, "1.npz"), os.path.join(tmp, "2.npz")
        p = compiled_run(stitch, normalize, cache, first)
        r = parse_json(p, "first compiled run")
        expect(p.returncode == 0 and r and r["compile"]["cache"] == "compiled",
               "a fresh cache compiles (cache: compiled)", p)
        p = compiled_run(stitch, normalize, cache, second)
        r = parse_json(p, "second compiled run")
        expect(p.returncode == 0 and r and r["compile"]["cache"] == "disk",
               "a second process loads from disk, no compiler call (cache: disk)", p)
        expect(os.path.exists(second) and output_bytes(first) == output_bytes(second),
               "the cached program gives the same outputs")

        # A truncated entry is detected, rebuilt, and the run is still right.
        entries = glob.glob(os.path.join(cache, "**", "*.so"), recursive=True)
        expect(len(entries) >= 1, "the cache holds a .so entry (%d)" % len(entries))
        for path in entries:
            with open(path, "r+b") as f:
                f.truncate(max(os.path.getsize(path) // 2, 1))
        third = os.path.join(tmp, "3.npz")
        p = compiled_run(stitch, normalize, cache, third)
        r = parse_json(p, "run after truncating the entry")
        expect(p.returncode == 0 and r and r["compile"]["cache"] == "compiled"
               and r["compile"].get("rebuilt_bad_entry") is True,
               "a truncated cache entry is detected and rebuilt", p)
        expect(p.returncode == 0 and output_bytes(first) == output_bytes(third),
               "the rebuilt program gives the same outputs")

        # Two processes compiling the same new program at once both succeed.
        fresh = os.path.join(tmp, "fresh")
        env = process_env({"STITCH_CACHE_DIR": fresh})
        procs, outs = [], []
        for i in range(2):
            out = os.path.join(tmp, "c%d.npz" % i)
            outs.append(out)
            args = ["run", normalize, "--input", "src=f32[5,9,3]", "--input", "mean=1",
                    "--input", "scale=0.5", "--seed", "3", "--json", "--outputs", out]
            procs.append(subprocess.Popen([stitch] + args, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, env=env))
        results = [(pr, *pr.communicate()) for pr in procs]
        for i, (pr, out, err) in enumerate(results):
            expect(pr.returncode == 0, "concurrent compile, process %d exits 0 (%s)" % (i, err.strip()))
        expect(all(os.path.exists(o) for o in outs) and output_bytes(outs[0]) == output_bytes(outs[1]),
               "concurrent compiles give the same outputs")


def check_outputs_npz(stitch, normalize, seed):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "o.npz")
        p = run(stitch, ["run", normalize, "--input", "src=f32[4,5,3]", "--input", "mean=0",
                         "--input", "scale=1", "--seed", str(seed), "--outputs", out])
        expect(p.returncode == 0 and p.stdout.startswith("out0: f32[4, 5, 3]"), "text output line", p)
        with zipfile.ZipFile(out) as z:
            expect(z.namelist() == ["out0.npy"], "--outputs writes out0.npy", p)
            expect(z.testzip() is None, "--outputs CRCs are valid", p)
            header = z.read("out0.npy")[:128]
            expect(b"'descr': '<f4'" in header and b"(4, 5, 3)" in header, "out0 header", p)
        # Random inputs depend on --seed only.
        data = {}
        for name, s in (("a", seed), ("b", seed), ("c", seed + 1)):
            path = os.path.join(tmp, name + ".npz")
            p = run(stitch, ["run", normalize, "--input", "src=f32[4,5,3]", "--input", "mean=0",
                             "--input", "scale=1", "--seed", str(s), "--outputs", path])
            with zipfile.ZipFile(path) as z:
                data[name] = z.read("out0.npy")
        expect(data["a"] == data["b"], "same --seed, same values")
        expect(data["a"] != data["c"], "another --seed, other values")


def check_dump(stitch, normalize):
    p = run(stitch, ["dump", normalize, "--input", "src=f32[8,9,3]"])
    expect(p.returncode == 0 and p.stdout.startswith("graph normalize(") and "f32[8,9,3]" in p.stdout,
           "dump --stage parsed prints the specialized graph", p)
    p = run(stitch, ["dump", normalize, "--stage", "all"])
    expect(p.returncode == 0 and "== after emit (" in p.stdout and "== after shape-inference (" in p.stdout
           and "== after remove-update (" in p.stdout and "== after dce (" in p.stdout,
           "dump --stage all prints every pass", p)
    for stage in ("functional", "simplified"):
        p = run(stitch, ["dump", normalize, "--input", "src=f32[8,9,3]", "--stage", stage])
        expect(p.returncode == 0 and p.stdout.startswith("graph normalize(") and "copy_" not in p.stdout
               and "immut." in p.stdout, "dump --stage %s prints the functional graph" % stage, p)
    p = run(stitch, ["run", normalize, "--input", "src=f32[2,2,3]", "--input", "mean=0", "--input", "scale=1"],
            env={"STITCH_DEBUG": "1"})
    expect(p.returncode == 0 and "== after emit (" in p.stderr and "== after shape-inference (" in p.stderr
           and "== after plan-kernels (" in p.stderr and "== after render-c (" in p.stderr,
           "STITCH_DEBUG=1 logs every pass on stderr", p)
    spec = ["--input", "src=f32[8,9,3]"]
    p = run(stitch, ["dump", normalize, "--stage", "ugraph"] + spec)
    expect(p.returncode == 0 and "k0" in p.stdout and "f32[8,9,3]" in p.stdout,
           "dump --stage ugraph prints the kernel graph", p)
    p = run(stitch, ["dump", normalize, "--stage", "fused"] + spec)
    expect(p.returncode == 0 and p.stdout.startswith("group g0 ") and "schedule (split_dim=" in p.stdout,
           "dump --stage fused prints the groups with their schedules", p)
    p = run(stitch, ["dump", normalize, "--stage", "all"] + spec)
    expect(p.returncode == 0 and "== after fuse (" in p.stdout, "dump --stage all shows the fuse pass", p)
    p = run(stitch, ["dump", normalize, "--stage", "uops"] + spec)
    expect(p.returncode == 0 and p.stdout.startswith("kernel k") and "DEFINE_GLOBAL" in p.stdout
           and "STORE" in p.stdout, "dump --stage uops prints each kernel's uops", p)
    p = run(stitch, ["dump", normalize, "--stage", "code"] + spec)
    expect(p.returncode == 0 and "stitch_scalar" in p.stdout and "void k0(" in p.stdout
           and "for (" in p.stdout, "dump --stage code prints the C source", p)
    p = run(stitch, ["dump", normalize, "--stage", "all"] + spec)
    expect(p.returncode == 0 and "== after plan-kernels (" in p.stdout and "== after linearize (" in p.stdout
           and "== after render-c (" in p.stdout, "dump --stage all ends with the code generator's passes", p)
    # No compiler needed for dump: an empty PATH hides clang and gcc.
    p = run(stitch, ["dump", normalize, "--stage", "code"] + spec, env={"PATH": ""})
    expect(p.returncode == 0 and "void k0(" in p.stdout, "dump --stage code works without a compiler", p)


def check_cuda(stitch, normalize, seed):
    """--device cuda: CUDA source from dump without a GPU; a run through the
    emulator reports the device, launches and host syncs; without a driver
    (where this machine has none) a one-line error that suggests --device
    cpu, exit 1."""
    spec = ["--input", "src=f32[8,9,3]"]
    p = run(stitch, ["dump", normalize, "--stage", "code", "--device", "cuda"] + spec, env={"PATH": ""})
    expect(p.returncode == 0 and "STITCH_KERNEL void k0(const stitch_args args)" in p.stdout
           and "threadIdx.x" in p.stdout, "dump --stage code --device cuda prints CUDA, no compiler or GPU", p)
    p = run(stitch, ["dump", normalize, "--stage", "all", "--device", "cuda"] + spec)
    expect(p.returncode == 0 and "== after render-cuda (" in p.stdout, "dump --stage all names render-cuda", p)
    args = ["run", normalize, "--input", "src=f32[16,20,3]", "--input", "mean=0.5", "--input", "scale=2",
            "--seed", str(seed), "--device", "cuda", "--check", "--json"]
    p = run(stitch, args, env={"STITCH_CUDA_EMULATOR": "1"})
    r = parse_json(p, "--device cuda --json on the emulator")
    expect(p.returncode == 0 and r and r["check"]["ok"] and r["device"].startswith("CUDA emulator")
           and r["kernels"] >= 1 and r["host_syncs"] == 1 and "(CUDA emulator)" in r["compile"]["compiler"],
           "--device cuda on the emulator: checked, device, launches, 1 host sync", p)
    if not os.path.exists("/dev/nvidiactl"):
        p = run(stitch, args, env={"STITCH_CUDA_EMULATOR": "0", "LD_LIBRARY_PATH": ""})
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 1 and len(lines) == 1 and lines[0].startswith("stitch: error: CUDA: ")
               and "--device cpu" in lines[0], "--device cuda without a GPU: one line, exit 1", p)
    p = run(stitch, ["run", normalize, "--device", "tpu"] + spec)
    expect(p.returncode == 2 and "--device expects cpu or cuda" in p.stderr, "--device tpu: exit 2", p)


def check_tune(stitch, softmax, seed):
    """--tune measures the candidate schedules once, stores the choice, and a
    second run reuses it; results stay checked against the interpreter."""
    with tempfile.TemporaryDirectory(prefix="stitch-cli-tune-") as tmp:
        env = {"STITCH_CACHE_DIR": os.path.join(tmp, "cache")}
        args = ["run", softmax, "--input", "x=f32[64,1000]", "--seed", str(seed), "--threads", "2",
                "--tune", "--check", "--json"]
        p = run(stitch, args, env=env)
        r = parse_json(p, "--tune --json")
        expect(p.returncode == 0 and r and r["check"]["ok"] and r["tune"]["from_cache"] is False
               and r["tune"]["measured"] >= r["tune"]["groups"], "--tune measures the candidates", p)
        stored = glob.glob(os.path.join(tmp, "cache", "tune", "*.txt"))
        expect(len(stored) == 1, "--tune stores its choice (%d files)" % len(stored))
        p = run(stitch, args, env=env)
        r = parse_json(p, "--tune --json, second run")
        expect(p.returncode == 0 and r and r["check"]["ok"]
               and (r["tune"]["from_cache"] or r["tune"]["groups"] == 0),
               "a second --tune run reuses the stored choice", p)


def check_unavailable(stitch, normalize):
    base = ["run", normalize, "--input", "src=f32[2,2,3]", "--input", "mean=0", "--input", "scale=1"]
    cases = [
        (base + ["--stage", "functional"], "stitch: error: --stage applies to --mode interp"),
        (base + ["--mode", "compiled", "--stage", "parsed"], "stitch: error: --stage applies to --mode interp"),
        (base + ["--mode", "interp", "--tune"], "stitch: error: --tune applies to --mode compiled"),
    ]
    for args, message in cases:
        p = run(stitch, args)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and lines[0].startswith(message),
               f"{message} (exit 2)", p)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--examples", required=True)
    args = parser.parse_args()
    normalize = os.path.join(args.examples, "normalize.py")
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    global CACHE_DIR
    with tempfile.TemporaryDirectory(prefix="stitch-cli-") as cache:
        CACHE_DIR = cache
        return run_checks(args, normalize, seed)


def run_checks(args, normalize, seed):
    check_help(args.stitch)
    check_json(args.stitch, normalize, seed)
    check_json_compiled(args.stitch, normalize, seed)
    check_kernel_cache(args.stitch, normalize)
    check_outputs_npz(args.stitch, normalize, seed)
    check_dump(args.stitch, normalize)
    check_tune(args.stitch, os.path.join(args.examples, "softmax.py"), seed)
    check_cuda(args.stitch, normalize, seed)
    check_unavailable(args.stitch, normalize)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
