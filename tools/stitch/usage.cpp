#include "usage.h"

#include "stitch/stitch.h"

namespace stitch::cli {

std::string versionLine() { return std::string("stitch ") + api::version() + " (TensorStitch)"; }

const char* const kMainUsage = R"TXT(usage: stitch <command> [options]

TensorStitch: a compiler for imperative tensor programs written in the
TorchScript subset of Python.

commands:
  run FILE.py      run a function of FILE.py on given or random inputs
  dump FILE.py     print the IR of a function after a compiler stage
  einsum EXPR      run a tensor contraction on the JIT tensor-operation backend

  stitch <command> --help   options of one command
  stitch --version          the version

exit codes: 0 ok; 1 run-time failure or --check mismatch; 2 bad program or
bad arguments (one line: FILE:LINE:COL: error: ... or stitch: error: ...).
)TXT";

const char* const kRunUsage = R"TXT(usage: stitch run FILE.py [options]

Runs a function of FILE.py (by default the last one) and prints its outputs.

options:
  --fn NAME            the function to run (default: the last one in the file)
  --input NAME=SPEC    an input; repeat for each parameter (one with a
                       default may be left out). SPEC is
                         f32[800,1333,3]  a random tensor (dtypes f32 f64 i32
                                          i64 bool; f32[] is 0-dim): floats
                                          uniform in [-1, 1), integers in
                                          [0, 10), from --seed
                         2  0.5  -3  true a scalar, typed by the annotation
                         [f32[2,3],f32[4]] a list (List[...] parameters)
  --inputs IN.npz      tensors by parameter name from a numpy .npz (stored or
                       deflated); a List[Tensor] parameter NAME is read from
                       members NAME_0, NAME_1, ...; a scalar parameter may be
                       a 0-dim member
  --outputs OUT.npz    write the outputs as out0, out1, ... (lists and tuples
                       flattened in order, scalars as 0-dim arrays)
  --mode MODE          compiled (the default): run the whole pipeline,
                       generate C kernels, compile them (clang, else gcc;
                       cached in $STITCH_CACHE_DIR, default
                       ~/.cache/tensorstitch) and run them; interp: run the
                       reference interpreter on the IR after --stage
  --stage STAGE        with --mode interp, the IR to interpret: parsed
                       (default), functional (no views or in-place ops;
                       written inputs are copied back after the run),
                       simplified (+ dce, cse, folding, canonicalization)
  --check              also run the reference interpreter and compare: |a-b|
                       <= 1e-5 + 1e-4 |b| + 8 eps max|b| (eps of the dtype,
                       max over the tensor); a mismatch exits 1. Compiled mode
                       interprets the parsed program; interp mode the graph
                       as emitted, before shape specialization
  --bench N            one warm-up run, then N timed runs (median and min)
  --seed S             seed of the random inputs (default 0)
  --threads N          OpenMP threads for the kernels and the host ops (the
                       fused kernels' schedules are tuned for it)
  --tune               compiled mode: time every fused group's candidate
                       schedules on these inputs (a progress bar on a
                       terminal) and keep the fastest, instead of the cost
                       model's choice; the choice is stored under
                       $STITCH_CACHE_DIR/tune and reused by the next --tune
                       run of the same program, inputs types and threads
  --device DEVICE      cpu (default), or cuda: the generated kernels run on
                       the first CUDA GPU (compiled by NVRTC, found as
                       $STITCH_NVRTC or libnvrtc.so; cubins cached with the C
                       kernels), copying their operands to the GPU and back
                       per call; contractions and host ops run on the CPU.
                       Without a CUDA driver or GPU: a one-line error, exit 1
  --work               compiled mode: each kernel's value operations per call
                       (data ALU ops and stores times their loops) next to
                       the same for its ops compiled each alone (op_work);
                       work far above op_work is fusion recomputing values
  --json               print one JSON object: mode, outputs, kernels (kernel
                       calls per run), device, host_syncs (waits for the GPU
                       per run), time_ms, compile (compiled mode: ms,
                       cache memory|disk|compiled, compiler), tune (with
                       --tune: groups, measured, from_cache), work (with
                       --work: kernel, kind, work, op_work), check (with
                       --check), stages

Environment: STITCH_DEBUG=1 prints the IR after every compiler pass, with
its time, to stderr. STITCH_CACHE_DIR: where compiled kernels are cached.
)TXT";

const char* const kDumpUsage = R"TXT(usage: stitch dump FILE.py [options]

Prints the IR of a function after a compiler stage. Inputs given with
--input specialize the types (dtypes and shapes); parameters without one
keep their annotated type.

options:
  --fn NAME            the function (default: the last one in the file)
  --input NAME=SPEC    as for stitch run (no data is generated)
  --stage STAGE        parsed (default), functional, simplified: the graph
                       IR; fused: the fused groups, one line each, with
                       their schedules; ugraph: the kernel graph (kernels, block graphs,
                       thread graphs); uops: each kernel's uops; code: the C
                       source of the whole program (nothing is compiled);
                       all: every pass's output in order, with its time,
                       "(unchanged)" when a pass changed nothing
  --device DEVICE      cpu (default), or cuda: stage code is the CUDA source
                       (needs no GPU), rendered for the 48 KiB of shared
                       memory per block that every GPU has
  --threads N          choose the fused groups' schedules for N threads, as
                       stitch run --threads N does (default: one per core,
                       as stitch run)
)TXT";

}  // namespace stitch::cli
