"""Golden IR tests: each tests/golden/*.py is a program with FileCheck-style
comments, checked against `stitch dump --stage STAGE` line by line.

    run_golden.py --stitch build/tools/stitch/stitch --golden tests/golden [--only NAME]

Directives (comment lines of the .py file, in order):
    # ARGS: --input b=f32[5,3] --input n=4    arguments of every dump
    # STAGE: functional                       the following checks are
                                              matched against this stage's IR
    # CHECK: text          a line containing text, after the previous match
    # CHECK-NEXT: text     the line right after the previous match contains text
    # CHECK-NOT: text      no line between the previous match and the next
                           match (or the end of the IR) contains text
Text is matched literally, except that {{regex}} matches a Python regex
(`%{{[0-9]+}}` is any numbered value). Exit 0 when every file passes.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

DIRECTIVE = re.compile(r"^#\s*(ARGS|STAGE|CHECK|CHECK-NEXT|CHECK-NOT):\s?(.*)$")


def pattern(text):
    parts = re.split(r"\{\{(.*?)\}\}", text.strip())
    return re.compile("".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts)))


def parse(path):
    args, sections = [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            m = DIRECTIVE.match(line.strip())
            if not m:
                continue
            kind, text = m.groups()
            if kind == "ARGS":
                args += shlex.split(text)
            elif kind == "STAGE":
                sections.append((text.strip(), []))
            else:
                if not sections:
                    raise SystemExit(f"{path}:{number}: {kind} before any STAGE")
                sections[-1][1].append((kind, text, pattern(text), number))
    return args, sections


def match(ir_lines, checks, where):
    """Returns an error message, or None when every check holds."""
    pos = 0          # index of the next line a CHECK may match
    last = None      # index of the previous match
    pending_not = []
    for kind, text, rx, number in checks:
        if kind == "CHECK-NOT":
            pending_not.append((text, rx, number))
            continue
        if kind == "CHECK-NEXT":
            if last is None:
                return f"{where}:{number}: CHECK-NEXT without a previous match"
            found = last + 1 if last + 1 < len(ir_lines) and rx.search(ir_lines[last + 1]) else None
            if found is None:
                got = ir_lines[last + 1] if last + 1 < len(ir_lines) else "<end of IR>"
                return f"{where}:{number}: CHECK-NEXT: {text!r} not on the next line; got {got!r}"
        else:
            found = next((i for i in range(pos, len(ir_lines)) if rx.search(ir_lines[i])), None)
            if found is None:
                return f"{where}:{number}: CHECK: {text!r} not found after line {pos}"
        for not_text, not_rx, not_number in pending_not:
            for i in range(pos, found):
                if not_rx.search(ir_lines[i]):
                    return f"{where}:{not_number}: CHECK-NOT: {not_text!r} found: {ir_lines[i]!r}"
        pending_not = []
        last, pos = found, found + 1
    for not_text, not_rx, not_number in pending_not:
        for i in range(pos, len(ir_lines)):
            if not_rx.search(ir_lines[i]):
                return f"{where}:{not_number}: CHECK-NOT: {not_text!r} found: {ir_lines[i]!r}"
    return None


def check_file(stitch, path):
    args, sections = parse(path)
    if not sections:
        print(f"FAIL {path}: no STAGE/CHECK directives")
        return False
    ok = True
    for stage, checks in sections:
        cmd = [stitch, "dump", path, "--stage", stage] + args
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL {os.path.basename(path)} [{stage}]: exit {proc.returncode}\n{proc.stderr}")
            ok = False
            continue
        error = match(proc.stdout.splitlines(), checks, path)
        if error:
            print(f"FAIL {os.path.basename(path)} [{stage}]: {error}\n--- IR ---\n{proc.stdout}")
            ok = False
        else:
            print(f"ok   {os.path.basename(path)} [{stage}]: {len(checks)} checks")
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stitch", required=True)
    parser.add_argument("--golden", required=True, help="folder of golden .py files")
    parser.add_argument("--only", action="append", help="only this file's name (repeatable)")
    a = parser.parse_args()
    files = sorted(glob.glob(os.path.join(a.golden, "*.py")))
    files = [f for f in files if os.path.basename(f) != "run_golden.py"]
    if a.only:
        files = [f for f in files if os.path.splitext(os.path.basename(f))[0] in a.only]
    if not files:
        print("no golden files")
        return 1
    results = [check_file(a.stitch, f) for f in files]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
