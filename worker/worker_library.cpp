// The C API of libisobench-worker.so (include/isobench/worker.h). Nothing may escape into the
// caller (a Python interpreter, through ctypes): every exception becomes a return code.

#include <isobench/worker.h>

#include <exception>
#include <iostream>
#include <string>

#include "kernels/error_buffer.hpp"
#include "registered_kernels.hpp"
#include "worker_command_line.hpp"

extern "C" {

int isobench_worker_api_version(void) { return ISOBENCH_WORKER_API_VERSION; }

int isobench_worker_register(const char* key, const isobench_registered_kernel* kernel, char* error,
                             size_t error_len) {
  try {
    if (!key || !kernel) throw std::invalid_argument("isobench_worker_register: key and kernel are required");
    isobench::worker::register_kernel(key, *kernel);
    return 0;
  } catch (const std::exception& e) {
    isobench::kernels::write_error_buffer(error, error_len, e.what());
    return 1;
  }
}

int isobench_worker_main(int argc, char** argv) {
  try {
    return isobench::worker::run_worker_command_line(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "isobench-worker: " << e.what() << "\n";
    return 3;
  } catch (...) {
    std::cerr << "isobench-worker: unknown exception\n";
    return 3;
  }
}

}  // extern "C"
