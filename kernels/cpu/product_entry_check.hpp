#pragma once
// The check of one entry of a matrix product C = A * B (row-major): its reference in long double,
// and the error bound of a length-k dot product in T, scaled by the sum of |a_ip * b_pj|.

#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>

namespace isobench::kernels::cpu_detail {

// Empty when C[i][j] agrees with the reference, else what differs. A is m x k with row stride
// lda, B is k x n with row stride ldb.
template <typename T>
std::string check_product_entry(const T* a, std::size_t lda, const T* b, std::size_t ldb, std::size_t k,
                                std::size_t i, std::size_t j, T got) {
  long double ref = 0, magnitude = 0;
  for (std::size_t p = 0; p < k; ++p) {
    const long double x = static_cast<long double>(a[i * lda + p]) * b[p * ldb + j];
    ref += x;
    magnitude += std::fabs(x);
  }
  const double unit = 2.0 * static_cast<double>(k) * std::numeric_limits<T>::epsilon();
  const double error = std::fabs(static_cast<double>(got) - static_cast<double>(ref));
  if (error <= unit * static_cast<double>(magnitude) + std::numeric_limits<T>::min()) return {};
  std::ostringstream os;
  os << "C[" << i << "][" << j << "] = " << static_cast<double>(got) << ", reference " << static_cast<double>(ref)
     << " (error " << error << ")";
  return os.str();
}

}  // namespace isobench::kernels::cpu_detail
