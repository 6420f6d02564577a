// Function clones for several x86-64 instruction sets, the best one picked
// by the dynamic loader (ifunc). The libraries are built for baseline
// x86-64; hot host loops use this to run wide vectors where the CPU has them.
// Elsewhere (other compilers or architectures) the attribute is dropped.
//
// For vector loops, clone for "arch=x86-64-v3" (AVX2, FMA) rather than
// "fma": "fma" implies AVX only, so every loop doing integer work on its
// lanes (the float32 exp's exponent arithmetic) ran 128 bits wide there
// (GQA decode 11% slower on one thread, bench/RESULTS.md).
#pragma once

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define STITCH_CPU_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#endif
#endif
#ifndef STITCH_CPU_CLONES
#define STITCH_CPU_CLONES(...)
#endif
