# Script-driven suites, included from tests/CMakeLists.txt.

# Differential suite vs PyTorch: one test per case family (cases_<family>.py)
# so ctest runs the families in parallel.
file(GLOB differential_families CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/differential/cases_*.py)
foreach(family_file ${differential_families})
  get_filename_component(family ${family_file} NAME_WE)
  string(REPLACE "cases_" "" family ${family})
  add_test(NAME differential.${family}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                   --stitch $<TARGET_FILE:stitch> --family ${family})
  # The same cases on the functional graph (written inputs copied back by
  # the driver) and on the simplified one.
  foreach(stage functional simplified)
    add_test(NAME differential_${stage}.${family}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/differential/run_differential.py
                     --stitch $<TARGET_FILE:stitch> --family ${family} --stage ${stage})
  endforeach()
endforeach()

# Error corpus: each bad program gives its one-line error, location and exit code.
add_test(NAME errors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/error/run_errors.py
                 --stitch $<TARGET_FILE:stitch>)

# Examples: each examples/NAME.py runs in PyTorch and through `stitch run
# --mode interp` on the same fresh random inputs; they must agree. Exit 77
# (no PyTorch/numpy on this machine) counts as skipped.
foreach(example normalize softmax layernorm bbox_decode lstm)
  add_test(NAME example.${example}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/check_examples.py
                   --stitch $<TARGET_FILE:stitch> --examples ${PROJECT_SOURCE_DIR}/examples
                   --only ${example})
  set_tests_properties(example.${example} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()

# Robustness: random broken variants of the differential programs and random
# input shapes end with exit 0/1/2 and one clean error line, never a crash.
add_test(NAME errors.robustness
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/error/run_robustness.py
                 --stitch $<TARGET_FILE:stitch> --count 300)

# The `stitch` command's own behaviour: help, --json, dump, STITCH_DEBUG,
# .npz outputs, errors for what this version lacks.
add_test(NAME cli
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/check_cli.py
                 --stitch $<TARGET_FILE:stitch> --examples ${PROJECT_SOURCE_DIR}/examples)

# Golden IR: tests/golden/*.py carry FileCheck-style CHECK lines for the IR
# after functionalize and after simplify.
add_test(NAME golden
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/golden/run_golden.py
                 --stitch $<TARGET_FILE:stitch> --golden ${CMAKE_CURRENT_SOURCE_DIR}/golden)
