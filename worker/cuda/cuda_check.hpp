#pragma once
// ISOBENCH_CUDA_CHECK(call): the worker uses the one checking macro the CUDA kernels use, so a
// failure reads the same wherever it happens (file, line, call, CUDA's message; throws
// std::runtime_error). It is defined beside the kernels because the worker depends on kernels/,
// never the other way round.

#include "kernels/cuda/cuda_check.hpp"
