# The CPU kernels' suite. Included from tests/kernels/CMakeLists.txt.
isobench_add_test(test_cpu_kernels
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_kernels.cpp
  LIBS isobench_kernels isobench_options
  LABELS unit)
