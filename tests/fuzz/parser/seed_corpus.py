#!/usr/bin/python3
"""Writes the parser fuzzer's seed corpus: the examples, the error corpus's
programs, the workloads, every differential case's program and the inputs
the fuzzer once found failing (corpus/), one file each.

    seed_corpus.py OUT_DIR
"""
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "differential"))
import run_differential as diff  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    sources = {}
    for pattern in ("examples/*.py", "tests/error/cases/*.py", "bench/workloads/*.py",
                    "tests/fuzz/parser/corpus/*"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            with open(path) as f:
                sources["%s_%s" % (pattern.split("/")[-2], os.path.basename(path))] = f.read()
    for family in diff.discover_families():
        for case in diff.load_cases(family):
            sources["diff_%s_%s.py" % (family, case["name"])] = diff.PRELUDE + case["src"]
    for name, text in sources.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    print("%d seed programs in %s" % (len(sources), out))


if __name__ == "__main__":
    main()
