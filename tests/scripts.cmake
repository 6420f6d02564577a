# Script-driven suites, included from tests/CMakeLists.txt.
#
# Every suite that compiles programs shares one kernel cache under the build
# tree (STITCH_CACHE_DIR, set on each test below), so tests never write to
# the user's home; suites that need a fresh cache make their own temp dir.
set(stitch_test_cache_dir ${CMAKE_BINARY_DIR}/test-kernel-cache)
set(stitch_script_tests)
set(cuda_emulated_tests)  # run with STITCH_CUDA_EMULATOR=1

# Differential suite vs PyTorch: one test per case family (cases_<family>.py)
# so ctest runs the families in parallel.
file(GLOB differential_families CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/differential/cases_*.py)
foreach(family_file ${differential_families})
  get_filename_component(family ${family_file} NAME_WE)
  string(REPLACE "cases_" "" family ${family})
  # The reference interpreter on the program as parsed.
  add_test(NAME differential.${family}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch $<TARGET_FILE:stitch> --family ${family} --mode interp)
  # The same cases on the functional graph (written inputs copied back by
  # the driver) and on the simplified one.
  foreach(stage functional simplified)
    add_test(NAME differential_${stage}.${family}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                     --stitch $<TARGET_FILE:stitch> --family ${family} --mode interp
                     --stage ${stage})
    list(APPEND stitch_script_tests differential_${stage}.${family})
  endforeach()
  # The whole pipeline: generated kernels, the runtime, written-back inputs.
  add_test(NAME differential_compiled.${family}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch $<TARGET_FILE:stitch> --family ${family} --mode compiled)
  list(APPEND stitch_script_tests differential.${family} differential_compiled.${family})
  # The same through the CUDA path, on the CUDA emulator (runtime/cuda_emulator.h).
  add_test(NAME differential_cuda_emulated.${family}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch $<TARGET_FILE:stitch> --family ${family} --mode compiled --device cuda)
  list(APPEND cuda_emulated_tests differential_cuda_emulated.${family})
endforeach()
# The benchmark's workloads at their benchmark shapes, compiled: results
# against PyTorch and each kernel's work estimate (work inflation can grow
# with a dimension that the small test shapes keep short).
add_test(NAME differential_compiled.workloads_bench_shapes
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                 --stitch $<TARGET_FILE:stitch> --family workloads --mode compiled --bench-shapes)
list(APPEND stitch_script_tests differential_compiled.workloads_bench_shapes)

# Error corpus: each bad program gives its one-line error, location and
# exit code, in both modes.
add_test(NAME errors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/error/run_errors.py
                 --stitch $<TARGET_FILE:stitch> --mode interp)
add_test(NAME errors.compiled
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/error/run_errors.py
                 --stitch $<TARGET_FILE:stitch> --mode compiled)
list(APPEND stitch_script_tests errors errors.compiled)

# Examples: each examples/NAME.py runs in PyTorch and through `stitch run` on
# the same fresh random inputs; they must agree. Interp mode checks every
# stage; compiled mode the whole pipeline (with --check against the
# interpreter). Exit 77 (no PyTorch/numpy on this machine) counts as skipped.
foreach(example normalize softmax layernorm bbox_decode lstm)
  add_test(NAME example_cuda_emulated.${example}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/check_examples.py
                   --stitch $<TARGET_FILE:stitch> --examples ${PROJECT_SOURCE_DIR}/examples
                   --only ${example} --mode compiled --device cuda)
  set_tests_properties(example_cuda_emulated.${example} PROPERTIES SKIP_RETURN_CODE 77)
  list(APPEND cuda_emulated_tests example_cuda_emulated.${example})
  foreach(mode interp compiled)
    set(name example_${mode}.${example})
    if(mode STREQUAL "interp")
      set(name example.${example})
    endif()
    add_test(NAME ${name}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/check_examples.py
                     --stitch $<TARGET_FILE:stitch> --examples ${PROJECT_SOURCE_DIR}/examples
                     --only ${example} --mode ${mode})
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
    list(APPEND stitch_script_tests ${name})
  endforeach()
endforeach()

# Robustness: random broken variants of the differential programs and random
# input shapes end with exit 0/1/2 and one clean error line, never a crash.
add_test(NAME errors.robustness
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/error/run_robustness.py
                 --stitch $<TARGET_FILE:stitch> --count 300 --mode interp)
add_test(NAME errors.robustness_compiled
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/error/run_robustness.py
                 --stitch $<TARGET_FILE:stitch> --count 100 --mode compiled)
list(APPEND stitch_script_tests errors.robustness errors.robustness_compiled)

# The `stitch` command's own behaviour: help, --json, dump, STITCH_DEBUG,
# .npz outputs, the kernel cache across processes, errors for what this
# version lacks. It makes fresh cache dirs of its own where it needs them.
add_test(NAME cli
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/check_cli.py
                 --stitch $<TARGET_FILE:stitch> --examples ${PROJECT_SOURCE_DIR}/examples)
list(APPEND stitch_script_tests cli)

# Golden IR: tests/golden/*.py carry FileCheck-style CHECK lines for the IR
# after functionalize and after simplify.
add_test(NAME golden
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/golden/run_golden.py
                 --stitch $<TARGET_FILE:stitch> --golden ${CMAKE_CURRENT_SOURCE_DIR}/golden)
list(APPEND stitch_script_tests golden)

# Random programs (tests/fuzz): a fixed-seed sample, each program in all
# four run configurations against PyTorch. A mismatch, crash, internal
# error, run-time error or timeout fails; refusals are listed in the class
# table, which the test prints. Failures are saved (shrunk) under the build
# tree.
add_test(NAME fuzz.sample
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.py
                 --stitch $<TARGET_FILE:stitch> --count 500 --seed sample --jobs 2
                 --out ${CMAKE_BINARY_DIR}/fuzz-sample --fail-on-failures
                 --shrink-per-class 1 --shrink-seconds 60)
set_tests_properties(fuzz.sample PROPERTIES TIMEOUT 900)
list(APPEND stitch_script_tests fuzz.sample)

set_tests_properties(${stitch_script_tests} PROPERTIES
                     ENVIRONMENT "STITCH_CACHE_DIR=${stitch_test_cache_dir}")
set_tests_properties(${cuda_emulated_tests} PROPERTIES
                     ENVIRONMENT "STITCH_CACHE_DIR=${stitch_test_cache_dir};STITCH_CUDA_EMULATOR=1")

# CUDA code, no GPU needed: every example's CUDA translation unit compiles
# with NVRTC, optimized, and every differential case's without optimization
# (-G, 10x faster), each for sm_80 and sm_90. scripts/common.sh installs
# PyPI's nvidia-cuda-nvrtc into the test venv and passes its library as
# STITCH_NVRTC; where NVRTC is missing the checker exits 77 (skipped).
add_executable(cuda_compile_check ${CMAKE_CURRENT_SOURCE_DIR}/cuda/cuda_compile_check.cpp)
target_link_libraries(cuda_compile_check PRIVATE stitch_codegen)
set(cuda_code_tests)
add_test(NAME cuda_code.examples
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/check_examples.py
                 --stitch $<TARGET_FILE:stitch> --examples ${PROJECT_SOURCE_DIR}/examples
                 --cuda-code $<TARGET_FILE:cuda_compile_check>)
list(APPEND cuda_code_tests cuda_code.examples)
foreach(family_file ${differential_families})
  get_filename_component(family ${family_file} NAME_WE)
  string(REPLACE "cases_" "" family ${family})
  add_test(NAME cuda_code.${family}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch $<TARGET_FILE:stitch> --family ${family} --mode compiled
                   --cuda-code $<TARGET_FILE:cuda_compile_check>)
  list(APPEND cuda_code_tests cuda_code.${family})
endforeach()
set(cuda_code_env "STITCH_CACHE_DIR=${stitch_test_cache_dir}")
if(STITCH_NVRTC)
  list(APPEND cuda_code_env "STITCH_NVRTC=${STITCH_NVRTC}")
endif()
set_tests_properties(${cuda_code_tests} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${cuda_code_env}")

# The checked build (STITCH_SANITIZED_BUILD: a build tree configured with
# STITCH_SANITIZE=ON, scripts/test.sh makes it): its unit tests, a fixed
# sample of the differential suite in compiled mode (kernels compiled with
# the sanitizers too) and on the simplified graph, and a few random
# programs, all under AddressSanitizer (leak checking included) and
# UndefinedBehaviorSanitizer; any report fails the test.
set(STITCH_SANITIZED_BUILD "" CACHE PATH "A STITCH_SANITIZE=ON build tree whose tests to run")
if(STITCH_SANITIZED_BUILD)
  set(sanitized_stitch ${STITCH_SANITIZED_BUILD}/tools/stitch/stitch)
  # intercept_tls_get_addr=0: GCC 12's sanitizer runtime takes a dynamic TLS
  # block (a dlopened library's thread-locals, e.g. NVRTC's) for glibc 2.19's
  # layout whenever its address is 16 past a page boundary, and records a range
  # read from the words before it; the leak checker's tracer then faults
  # scanning it at exit, at random, in tests that passed. Without the
  # interception the checker skips dynamic TLS as a root, nothing else.
  set(sanitizer_env "ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0"
                    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
                    "STITCH_CACHE_DIR=${CMAKE_BINARY_DIR}/sanitized-kernel-cache")
  add_test(NAME sanitize.unit
           COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${STITCH_SANITIZED_BUILD} -L unit -j2
                   --output-on-failure)
  add_test(NAME sanitize.differential_compiled
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch ${sanitized_stitch} --mode compiled --sample 3)
  add_test(NAME sanitize.differential_simplified
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch ${sanitized_stitch} --mode interp --stage simplified --sample 3)
  add_test(NAME sanitize.fuzz_sample
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.py
                   --stitch ${sanitized_stitch} --count 120 --seed sanitize --jobs 2
                   --out ${CMAKE_BINARY_DIR}/fuzz-sanitize --fail-on-failures
                   --shrink-per-class 1 --shrink-seconds 60)
  set_tests_properties(sanitize.unit sanitize.differential_compiled sanitize.differential_simplified
                       sanitize.fuzz_sample PROPERTIES ENVIRONMENT "${sanitizer_env}" TIMEOUT 1200)
endif()
