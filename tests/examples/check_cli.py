"""End-to-end checks of the `stitch` command's own behaviour (not of the
programs it runs): help and version, --json's shape, dump stages, the
STITCH_DEBUG pass log, .npz outputs, and the errors for what this version
does not have. Standard library only.

    check_cli.py --stitch build/tools/stitch/stitch --examples examples
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile

failures = []


def run(stitch, args, env=None):
    full_env = dict(os.environ)
    full_env.pop("STITCH_DEBUG", None)
    full_env.update(env or {})
    return subprocess.run([stitch] + args, capture_output=True, text=True, env=full_env)


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
    expect(p.returncode == 0 and "== after emit (" in p.stderr and "== after shape-inference (" in p.stderr,
           "STITCH_DEBUG=1 logs every pass on stderr", p)


def check_unavailable(stitch, normalize):
    base = ["run", normalize, "--input", "src=f32[2,2,3]", "--input", "mean=0", "--input", "scale=1"]
    cases = [
        (base + ["--mode", "compiled"], "stitch: error: --mode compiled is not available yet (use --mode interp)"),
        (["dump", normalize, "--stage", "uops"], "stitch: error: --stage uops is not available yet"),
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
    check_help(args.stitch)
    check_json(args.stitch, normalize, seed)
    check_outputs_npz(args.stitch, normalize, seed)
    check_dump(args.stitch, normalize)
    check_unavailable(args.stitch, normalize)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
