#!/usr/bin/env python3
"""Error corpus: every bad program must make `stitch run` exit with its code
(2 unless told) and print exactly one line on stderr,
`FILE:LINE:COL: error: MESSAGE`, at the expected location with the expected
text.

A case is one file cases/NAME.py whose first comment lines say what to expect:
  # expect: LINE:COL: text       location and a substring of the message
  # contains: text               (optional, repeatable) more substrings
  # args: --input x=f32[2,3]     (optional) extra arguments for `stitch run`
  # exit: 1                      (optional) expected exit code, default 2
Command-line errors are lines of cli_cases.txt: `NAME | ARGS | text`; ARGS
may use {prog} (a valid program) and {dir} (a scratch directory); the
expected line is `stitch: error: ...` containing text, exit code 2.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = re.compile(r"#\s*(expect|contains|args|exit):\s?(.*)$")
LOCATION = re.compile(r"(\d+):(\d+):\s*(.*)$")


class CaseFailure(Exception):
    pass


def parse_header(path):
    spec = {"contains": [], "args": [], "exit": 2, "loc": None}
    with open(path) as f:
        for line in f:
            match = HEADER.match(line.strip())
            if not match:
                break
            key, value = match.group(1), match.group(2).strip()
            if key == "expect":
                loc = LOCATION.match(value)
                if not loc:
                    raise SystemExit("%s: bad expect line %r" % (path, value))
                spec["loc"] = (int(loc.group(1)), int(loc.group(2)))
                spec["contains"].insert(0, loc.group(3))
            elif key == "contains":
                spec["contains"].append(value)
            elif key == "args":
                spec["args"] += shlex.split(value)
            elif key == "exit":
                spec["exit"] = int(value)
    if spec["loc"] is None:
        raise SystemExit("%s: no '# expect: LINE:COL: text' header" % path)
    return spec


def run_stitch(cmd):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise CaseFailure("timed out after 60 s")
    return proc


def check_output(proc, exit_code, prefix, contains):
    lines = proc.stderr.splitlines()
    shown = " | ".join(lines[:4]) if lines else "(empty stderr)"
    if proc.returncode != exit_code:
        raise CaseFailure("exit code %d, expected %d; stderr: %s" % (proc.returncode, exit_code,
                                                                     shown))
    if len(lines) != 1:
        raise CaseFailure("%d lines on stderr, expected 1: %s" % (len(lines), shown))
    line = lines[0]
    if not line.startswith(prefix):
        raise CaseFailure("stderr %r does not start with %r" % (line, prefix))
    for text in contains:
        if text not in line[len(prefix):]:
            raise CaseFailure("message %r does not contain %r" % (line[len(prefix):], text))


def run_program_case(stitch, path, mode):
    spec = parse_header(path)
    cmd = [stitch, "run", path, "--mode", mode] + spec["args"]
    proc = run_stitch(cmd)
    prefix = "%s:%d:%d: error: " % (path, spec["loc"][0], spec["loc"][1])
    check_output(proc, spec["exit"], prefix, spec["contains"])


def load_cli_cases():
    cases = []
    with open(os.path.join(HERE, "cli_cases.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, args, text = [part.strip() for part in line.split("|")]
            cases.append((name, args, text))
    return cases


def run_cli_case(stitch, args, text, scratch):
    prog = os.path.join(HERE, "cli_program.py")
    argv = [a.replace("{prog}", prog).replace("{dir}", scratch) for a in shlex.split(args)]
    proc = run_stitch([stitch] + argv)
    check_output(proc, 2, "stitch: error: ", [text])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stitch", required=True, help="path of the stitch binary")
    parser.add_argument("--filter", help="only cases whose name contains this")
    parser.add_argument("--mode", default="interp", choices=("interp", "compiled"),
                        help="stitch run --mode for the program cases (default interp)")
    args = parser.parse_args()
    if args.stitch and not os.access(args.stitch, os.X_OK):
        parser.error("no stitch binary at %s" % args.stitch)
    results = []
    for path in sorted(glob.glob(os.path.join(HERE, "cases", "*.py"))):
        name = os.path.basename(path)[:-3]
        if args.filter and args.filter not in name:
            continue
        results.append((name, lambda p=path: run_program_case(args.stitch, p, args.mode)))
    with tempfile.TemporaryDirectory(prefix="stitch-errors-") as scratch:
        for name, cli_args, text in load_cli_cases():
            if args.filter and args.filter not in name:
                continue
            results.append(("cli_" + name,
                            lambda a=cli_args, t=text: run_cli_case(args.stitch, a, t, scratch)))
        passed = failed = 0
        for name, run in results:
            try:
                run()
                passed += 1
                print("PASS %s" % name)
            except CaseFailure as e:
                failed += 1
                print("FAIL %s: %s" % (name, e))
            sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
