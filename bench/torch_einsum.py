#!/usr/bin/python3
"""torch.einsum on the tensorop benchmark workloads, one JSON object per line.

Names match tensorop_bench (<group>/torch/<case>/t<threads>) so the report can
put them side by side. Inputs are uniform in [-1, 1), fp32, contiguous.
"""
import json
import statistics
import sys
import time

import torch

SEED = dict(a=32, b=32, c=8, d=32, e=32, f=32)
BIG = dict(a=64, b=25, c=64, d=25, e=64, f=25)
CASES = [
    ("contraction", "seed", "acfd,bcef->abed", SEED),
    ("contraction", "64-25-64-25-64-25", "acfd,bcef->abed", BIG),
    ("gemm", "1024", "km,nk->nm", dict(m=1024, n=1024, k=1024)),
    ("gemm", "1600", "km,nk->nm", dict(m=1600, n=1600, k=1600)),
    # [[8,4],[7,3,8]->[7,3,4]] with 8->a, 4->b, 7->c, 3->d
    ("einsum", "tree", "ab,cda->cdb", dict(a=512, b=512, c=16, d=32)),
    ("einsum", "chain", "ab,bc,cd->ad", dict(a=512, b=512, c=512, d=512)),
    ("einsum", "batched", "bij,bjk->bik", dict(b=64, i=128, j=128, k=128)),
]


def flops(expr, sizes):
    lhs, out = expr.split("->")
    ops = lhs.split(",")
    if len(ops) == 2:
        total = 2
        for d in set(ops[0]) | set(ops[1]):
            total *= sizes[d]
        return total
    # chain a-b-c-d contracted pairwise left to right: two GEMMs
    a, b, c, d = (sizes[x] for x in "abcd")
    return 2 * a * b * c + 2 * a * c * d


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for group, case, expr, sizes in CASES:
            ops = expr.split("->")[0].split(",")
            xs = [torch.rand([sizes[d] for d in op]) * 2 - 1 for op in ops]
            torch.einsum(expr, *xs)
            # One thread: CPU time of the process (all its threads), like
            # tensorop_bench.s
            # single-thread rows (robust to other load). Two: wall time.
            clock = time.process_time if threads == 1 else time.perf_counter
            times = []
            for _ in range(reps):
                t0 = clock()
                torch.einsum(expr, *xs)
                times.append(clock() - t0)
            f = flops(expr, sizes)
            gf = [f / t / 1e9 for t in times]
            print(json.dumps({
                "name": f"{group}/torch/{case}/t{threads}",
                "gflops_median": statistics.median(gf),
                "gflops_max": max(gf),
                "time_ms_median": statistics.median(times) * 1e3,
            }), flush=True)


if __name__ == "__main__":
    main()
