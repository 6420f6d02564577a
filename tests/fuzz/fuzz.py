#!/usr/bin/python3
"""Random programs through `stitch run`, checked against PyTorch.

Generates valid programs (eager PyTorch and torch.jit.script accept them),
runs each through `stitch run` in five configurations on the same inputs,
compares with PyTorch, shrinks failures, saves each as a directory and
prints a class table.

  fuzz.py --stitch BIN --minutes 5 --seed 1 --out DIR
  fuzz.py --stitch BIN --count 300 --seed 7 --fail-on-failures
  fuzz.py --stitch BIN --replay DIR/failures/00042-mismatch
"""
import argparse
import collections
import concurrent.futures as futures
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
import numpy as np  # noqa: E402

import runner  # noqa: E402
import worker  # noqa: E402

MARKER = ".stitch-fuzz"  # marks an output dir this tool may clear
SHRINK_ORDER = ["interp-parsed", "interp-simplified", "compiled-t1", "compiled-t2", "compiled-cuda"]


# ---- failures on disk ---------------------------------------------------------------

def save_npz(path, arrays):
    np.savez(path, **{"out%d" % i: a for i, a in enumerate(arrays)})


def save_case(directory, case, key):
    """One failure: the program (shrunk, with the original beside it), its
    inputs, PyTorch's outputs, and per configuration the command line, what
    it printed and what it wrote."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "program.py"), "w") as f:
        f.write(case["src"])
    if "original" in case:
        with open(os.path.join(directory, "original.py"), "w") as f:
            f.write(case["original"])
    tensors = {k: v for k, v in case["inputs"].items() if isinstance(v, np.ndarray)}
    if tensors:
        np.savez(os.path.join(directory, "in.npz"), **tensors)
    scalars = {k: v for k, v in case["inputs"].items() if not isinstance(v, np.ndarray)}
    with open(os.path.join(directory, "inputs.json"), "w") as f:
        specs = {k: v for k, v in case["specs"].items() if k in case["inputs"]}
        json.dump({"fn": case["fn"], "scalars": scalars, "specs": specs,
                   "program": case["id"]}, f, indent=1)
    save_npz(os.path.join(directory, "expected.npz"), case["reference"].outputs)
    lines = []
    for run in case["runs"]:
        lines.append("%-18s %-9s %s" % (run.config, run.cls, run.message))
        if run.outputs is not None:
            save_npz(os.path.join(directory, "out-%s.npz" % run.config), run.outputs)
        with open(os.path.join(directory, "%s.log" % run.config), "w") as f:
            f.write("$ %s\nexit: %s\n--- stdout\n%s--- stderr\n%s" % (
                run.cmd, run.rc, run.stdout, run.stderr))
    with open(os.path.join(directory, "commands.txt"), "w") as f:
        f.write("".join(run.cmd + "\n" for run in case["runs"]))
    with open(os.path.join(directory, "result.txt"), "w") as f:
        f.write("failure: %s\n%s\n" % (key, "\n".join(lines)))


def load_saved(directory):
    with open(os.path.join(directory, "inputs.json")) as f:
        meta = json.load(f)
    with open(os.path.join(directory, "program.py")) as f:
        src = f.read()
    inputs = dict(meta["scalars"])
    npz = os.path.join(directory, "in.npz")
    if os.path.exists(npz):
        with np.load(npz) as data:
            inputs.update({k: data[k] for k in data.files})
    return src, meta["fn"], inputs


# ---- classification of one program -----------------------------------------------------

def failure_key(case):
    """The group a program's failure belongs to: the worst class with its
    message, and the configurations that show it."""
    bad = runner.worst(case["runs"])
    if bad.cls == "ok":
        return None, None
    sig = bad.signature()
    configs = [r.config for r in case["runs"] if r.signature() == sig]
    shrink_config = next(c for c in SHRINK_ORDER if c in configs)
    return "%s [%s]" % (sig, " ".join(configs)), (shrink_config, sig)


class Stats:
    def __init__(self):
        self.generated = self.valid = 0
        self.invalid = collections.Counter()
        self.worst = collections.Counter()
        self.worst_example = {}
        self.runs = collections.defaultdict(collections.Counter)
        self.groups = collections.OrderedDict()  # key -> [count, example dir, message, class]

    def add(self, case):
        self.generated += 1
        if case["status"] == "invalid":
            self.invalid[case["reason"].split(":")[0]] += 1
            return
        self.valid += 1
        bad = runner.worst(case["runs"])
        self.worst[bad.cls] += 1
        self.worst_example.setdefault(bad.cls, "program %d" % case["id"])
        for run in case["runs"]:
            self.runs[run.config][run.cls] += 1

    def failed(self):
        return sum(n for cls, n in self.worst.items() if cls in runner.FAILURES)

    def table(self):
        out = ["programs generated: %d, discarded: %d (%s), valid: %d" % (
            self.generated, sum(self.invalid.values()),
            ", ".join("%s %d" % kv for kv in sorted(self.invalid.items())) or "none", self.valid)]
        out.append("")
        out.append("%-10s %8s  %s" % ("class", "programs", "example"))
        for cls in runner.CLASSES[::-1]:
            out.append("%-10s %8d  %s" % (cls, self.worst[cls], self.worst_example.get(cls, "")))
        out.append("")
        out.append("runs per configuration: " + "  ".join(runner.CLASSES[::-1]))
        for name, _ in runner.CONFIGS:
            out.append("  %-18s " % name + "  ".join(
                "%*d" % (len(cls), self.runs[name][cls]) for cls in runner.CLASSES[::-1]))
        if self.groups:
            out.append("")
            out.append("failures and refusals by class (programs, first example):")
            for key, (count, example, message, _) in self.groups.items():
                out.append("  %4d  %s" % (count, key))
                out.append("        e.g. %s: %s" % (example, message[:200]))
        return "\n".join(out)


# ---- the campaign -------------------------------------------------------------------------

class Campaign:
    def __init__(self, args):
        self.args = args
        self.stats = Stats()
        self.failures_dir = os.path.join(args.out, "failures")
        self.shrinks = collections.Counter()

    def record(self, case):
        self.stats.add(case)
        if case["status"] != "valid":
            return
        key, shrink = failure_key(case)
        if key is None:
            return
        bad = runner.worst(case["runs"])
        group = self.stats.groups.setdefault(key, [0, None, bad.message, bad.cls])
        group[0] += 1
        if group[0] > self.args.save_per_class:
            return
        directory = os.path.join(self.failures_dir, "%05d-%s" % (case["id"], bad.cls))
        save_case(directory, case, key)
        if group[1] is None:
            group[1] = os.path.relpath(directory, self.args.out)
        limit = self.args.shrink_per_class if bad.cls in runner.FAILURES else 1
        if self.args.shrink_seconds > 0 and self.shrinks[key] < limit:
            self.shrinks[key] += 1
            seconds = self.args.shrink_seconds if bad.cls != "refused" else \
                min(30, self.args.shrink_seconds)
            self.submit(("shrink", directory, key), worker.shrink_case,
                        (case, shrink[0], shrink[1], seconds))

    def saved_shrunk(self, case, directory, key):
        if "shrink_error" in case:
            print("shrinking %s failed: %s" % (directory, case["shrink_error"]), flush=True)
            return
        save_case(directory, case, key)
        lines = case["src"].count("\n")
        print("shrunk %s to %d lines" % (os.path.relpath(directory, self.args.out), lines),
              flush=True)

    def submit(self, meta, fn, args, attempts=0):
        self.pending[self.pool.submit(fn, *args)] = (meta, fn, args, attempts)

    def new_pool(self):
        context = multiprocessing.get_context("spawn")
        self.pool = futures.ProcessPoolExecutor(self.args.jobs, mp_context=context,
                                                initializer=worker.init,
                                                initargs=(self.args.stitch, self.args.timeout))

    def restart(self):
        """A worker died (PyTorch can crash on odd programs): every task in
        flight runs again in a new pool; one in flight at two deaths is
        given up (a check counts as discarded)."""
        tasks = list(self.pending.values())
        self.pending = {}
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.new_pool()
        for meta, fn, args, attempts in tasks:
            if attempts < 1:
                self.submit(meta, fn, args, attempts + 1)
            elif meta[0] == "check":
                self.stats.add({"status": "invalid", "reason": "crash: the process died"})
            else:
                print("shrinking %s killed its process" % meta[1], flush=True)

    def run(self):
        args = self.args
        deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
        next_index = 0
        self.pending = {}
        self.new_pool()
        while True:
            while len(self.pending) < 2 * args.jobs and self.more(next_index, deadline):
                self.submit(("check",), worker.check, (args.seed, next_index))
                next_index += 1
            if not self.pending:
                break
            done, _ = futures.wait(list(self.pending), return_when=futures.FIRST_COMPLETED)
            try:
                for fut in done:
                    result = fut.result()
                    meta = self.pending.pop(fut)[0]
                    if meta[0] == "check":
                        self.record(result)
                        self.progress()
                    else:
                        self.saved_shrunk(result, meta[1], meta[2])
            except futures.process.BrokenProcessPool:
                self.restart()
        self.pool.shutdown()
        return self.stats

    def more(self, index, deadline):
        if self.args.count is not None and index >= self.args.count:
            return False
        return deadline is None or time.monotonic() < deadline

    def progress(self):
        s = self.stats
        if s.generated % 50 == 0:
            print("%d programs, %d valid, %d failing" % (s.generated, s.valid, s.failed()),
                  flush=True)


def prepare_out(out):
    if os.path.exists(out) and os.listdir(out):
        if not os.path.exists(os.path.join(out, MARKER)):
            sys.exit("fuzz.py: %s exists and was not made by this tool" % out)
        shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, MARKER), "w").close()


def replay(args):
    """Runs a saved failure again: PyTorch and the five configurations."""
    src, fn, inputs = load_saved(args.replay)
    worker.init(args.stitch, args.timeout)
    try:
        _, runs = worker.evaluate(src, fn, inputs, runner.CONFIGS)
    except runner.Invalid as e:
        print("PyTorch rejects the program: %s" % e)
        return 1
    for run in runs:
        print("%-18s %-9s %s" % (run.config, run.cls, run.message))
        print("    %s" % run.cmd)
    return 1 if any(r.cls in runner.FAILURES for r in runs) else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    default_stitch = os.path.join(here, "..", "..", "build", "tools", "stitch", "stitch")
    parser.add_argument("--stitch", default=default_stitch, help="the stitch binary")
    parser.add_argument("--minutes", type=float, help="generate programs for this long")
    parser.add_argument("--count", type=int, help="generate this many programs")
    parser.add_argument("--seed", default="1", help="campaign seed (programs and inputs)")
    parser.add_argument("--out", help="output dir, cleared first if an earlier campaign made it "
                                      "(default: a new temp dir)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel processes (default 2)")
    parser.add_argument("--timeout", type=int, default=runner.TIMEOUT_S,
                        help="seconds per stitch run (default %d)" % runner.TIMEOUT_S)
    parser.add_argument("--shrink-seconds", type=float, default=120,
                        help="time limit per shrink; 0 disables shrinking")
    parser.add_argument("--shrink-per-class", type=int, default=2,
                        help="failures shrunk per failure class (refusals: one)")
    parser.add_argument("--save-per-class", type=int, default=5,
                        help="failures saved per failure class")
    parser.add_argument("--fail-on-failures", action="store_true",
                        help="exit 1 when a program gives a mismatch, crash, internal error, "
                             "run-time error or timeout (refusals do not count)")
    parser.add_argument("--replay", metavar="DIR", help="run a saved failure again")
    args = parser.parse_args()
    if not os.access(args.stitch, os.X_OK):
        parser.error("no stitch binary at %s" % args.stitch)
    args.stitch = os.path.abspath(args.stitch)
    if args.replay:
        return replay(args)
    if args.minutes is None and args.count is None:
        parser.error("give --minutes or --count")
    args.out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="stitch-fuzz-out-"))
    prepare_out(args.out)
    # A campaign's kernels stay out of the user's cache unless one is set.
    os.environ.setdefault("STITCH_CACHE_DIR", os.path.join(args.out, "kernel-cache"))
    start = time.monotonic()
    stats = Campaign(args).run()
    table = stats.table()
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(table + "\n")
    print("\n" + table)
    print("\nseed %s, %.0f s, failures saved under %s" % (args.seed, time.monotonic() - start,
                                                         args.out))
    return 1 if args.fail_on_failures and stats.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
