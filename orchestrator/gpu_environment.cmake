# isobench_gpu_environment: NVML through dlopen, no CUDA. Included from orchestrator/CMakeLists.txt.
add_library(isobench_gpu_environment STATIC ${CMAKE_CURRENT_LIST_DIR}/gpu_environment.cpp)
target_include_directories(isobench_gpu_environment PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_gpu_environment PUBLIC nlohmann_json::nlohmann_json PRIVATE ${CMAKE_DL_LIBS} isobench_options)
