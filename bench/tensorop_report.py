#!/usr/bin/python3
"""Turns tensorop_bench JSON (+ torch_einsum.py lines) into one table.

Every result is shown in GFLOPS (median over repetitions), as a fraction of
the FMA peak measured in the same run, and as a ratio to the peers.

usage: tensorop_report.py BENCH.json [TORCH.jsonl]
"""
import collections
import json
import statistics
import sys


def load(bench_path, torch_path):
    reps = collections.defaultdict(list)
    with open(bench_path) as f:
        data = json.load(f)
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or "GFLOPS" not in b or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"]).split("/repeats:")[0]
        reps[name].append(b["GFLOPS"])
    results = {n: (statistics.median(v), max(v)) for n, v in reps.items()}
    if torch_path:
        with open(torch_path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    r = json.loads(line)
                    results[r["name"]] = (r["gflops_median"], r["gflops_max"])
    return results


def main():
    results = load(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    peak1 = results.get("peak/fma/-/t1", (float("nan"),))[0]
    peak2 = results.get("peak/fma/-/t2", (float("nan"),))[0]
    rows = []

    def row(label, name, peers=(), peak=peak1):
        if name not in results:
            return None
        g = results[name][0]
        ratios = []
        for peer_label, peer_name in peers:
            if peer_name in results:
                ratios.append(f"{g / results[peer_name][0]:.2f}x {peer_label}")
        rows.append((label, f"{g:8.1f}", f"{100 * g / peak:5.1f}%", ", ".join(ratios)))
        return g

    print(f"FMA peak: {peak1:.1f} GFLOPS (1 thread), {peak2:.1f} GFLOPS (2 threads), "
          f"2-thread speed-up {peak2 / peak1:.2f}")
    print()
    rows.append(("peak/fma t1", f"{peak1:8.1f}", "100.0%", ""))
    rows.append(("peak/fma t2", f"{peak2:8.1f}", f"{100 * peak2 / peak1:5.1f}%", "(of 1-thread peak)"))
    row("fma + one BRGEMM k step's loads t1", "peak/fma_with_kernel_loads/-/t1")
    for impl in ("stitch", "libxsmm", "onednn", "openblas"):
        row(f"brgemm 64x48x64 in cache: {impl}", f"brgemm/{impl}/64x48x64/br1/t1",
            [] if impl != "stitch" else [("libxsmm", "brgemm/libxsmm/64x48x64/br1/t1"),
                                         ("oneDNN", "brgemm/onednn/64x48x64/br1/t1"),
                                         ("OpenBLAS", "brgemm/openblas/64x48x64/br1/t1")])
    for impl in ("stitch", "libxsmm"):
        row(f"brgemm 64x48x64 br16: {impl}", f"brgemm/{impl}/64x48x64/br16/t1",
            [] if impl != "stitch" else [("libxsmm", "brgemm/libxsmm/64x48x64/br16/t1")])
    # Sweep means.
    for br in ("br1", "br16", ""):
        for impl in ("stitch", "libxsmm"):
            vals = [v[0] for n, v in results.items()
                    if n.startswith(f"sweep/{impl}/") and (not br or n.split("/")[3] == br)]
            if not vals:
                continue
            ratio = ""
            if impl == "stitch":
                pairs = [(v[0], results[n.replace("/stitch/", "/libxsmm/")][0])
                         for n, v in results.items()
                         if n.startswith("sweep/stitch/") and (not br or n.split("/")[3] == br)
                         and n.replace("/stitch/", "/libxsmm/") in results]
                if pairs:
                    ratio = f"{statistics.mean(a / b for a, b in pairs):.2f}x libxsmm (mean of ratios)"
            mean = statistics.mean(vals)
            rows.append((f"sweep mean {br or 'all'} ({len(vals)} shapes): {impl}", f"{mean:8.1f}",
                         f"{100 * mean / peak1:5.1f}%", ratio))
    for which in (1, 2, 3):
        row(f"seed TensorOperation config {which}", f"tensorop/stitch/seed-config{which}/t1")
    for t, peak in (("t1", peak1), ("t2", peak2)):
        peers = lambda grp, case: [("oneDNN", f"{grp}/onednn/{case}/{t}"),
                                   ("OpenBLAS", f"{grp}/openblas/{case}/{t}"),
                                   ("torch", f"{grp}/torch/{case}/{t}")]
        row(f"seed contraction acfd,bcef->abed {t}", f"contraction/stitch/seed/{t}",
            [("oneDNN 1024x1024x256", f"contraction/onednn/seed/{t}"),
             ("OpenBLAS", f"contraction/openblas/seed/{t}"),
             ("torch", f"contraction/torch/seed/{t}")], peak)
        for impl in ("onednn", "openblas", "torch"):
            row(f"  {impl} same flops {t}", f"contraction/{impl}/seed/{t}", [], peak)
        for size in ("1024", "1600"):
            row(f"gemm {size}^3 {t}", f"gemm/stitch/{size}/{t}", peers("gemm", size), peak)
            for impl in ("onednn", "openblas", "torch"):
                row(f"  {impl} {t}", f"gemm/{impl}/{size}/{t}", [], peak)
        row(f"contraction (64,25,64,25,64,25) {t}", f"contraction/stitch/64-25-64-25-64-25/{t}",
            [("oneDNN 1600^3", f"gemm/onednn/1600/{t}"),
             ("torch", f"contraction/torch/64-25-64-25-64-25/{t}")], peak)
        for case in ("tree", "chain", "batched"):
            row(f"einsum {case} {t}", f"einsum/stitch/{case}/{t}",
                [("torch", f"einsum/torch/{case}/{t}")], peak)
            row(f"  torch {case} {t}", f"einsum/torch/{case}/{t}", [], peak)

    width = max(len(r[0]) for r in rows)
    print(f"{'workload':<{width}}  {'GFLOPS':>8}  {'%peak':>6}  ratio to peers")
    for label, g, p, ratios in rows:
        print(f"{label:<{width}}  {g}  {p:>6}  {ratios}")

    # Thread scaling versus the peak's own scaling.
    print()
    peak_speedup = peak2 / peak1
    print(f"2-thread scaling (peak's own speed-up {peak_speedup:.2f}):")
    for case in ("contraction/stitch/seed", "gemm/stitch/1024", "gemm/stitch/1600",
                 "contraction/stitch/64-25-64-25-64-25", "einsum/stitch/chain"):
        if f"{case}/t1" in results and f"{case}/t2" in results:
            s = results[f"{case}/t2"][0] / results[f"{case}/t1"][0]
            print(f"  {case:<40} speed-up {s:.2f} = {100 * s / peak_speedup:.0f}% of the peak's")


if __name__ == "__main__":
    main()
