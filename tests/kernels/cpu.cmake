# The CPU kernels' suite. Included from tests/kernels/CMakeLists.txt.
isobench_add_test(test_cpu_kernels
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_kernels.cpp
  LIBS isobench_kernels isobench_options
  LABELS unit)

# The plugin loader against the example plugin and broken test plugins (bad_plugin.cpp), which
# land in <build>/lib beside the examples; the integration tests use them too.
foreach(bad ABI2 NO_DESCRIBE CLASH BAD_DEFAULT)
  string(TOLOWER ${bad} bad_name)
  set(bad_target isobench_test_plugin_${bad_name})
  add_library(${bad_target} MODULE ${CMAKE_CURRENT_LIST_DIR}/bad_plugin.cpp)
  target_include_directories(${bad_target} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(${bad_target} PRIVATE BAD_PLUGIN_${bad})
  set_target_properties(${bad_target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
endforeach()
isobench_add_test(test_plugin_loader
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plugin_loader.cpp
  LIBS isobench_kernel_specs isobench_options
  LABELS unit)
add_dependencies(test_plugin_loader isobench_example_cpu isobench_test_plugin_abi2
  isobench_test_plugin_no_describe isobench_test_plugin_clash isobench_test_plugin_bad_default)
