#pragma once

#include <span>
#include <vector>

namespace isobench::stats {

// Adjusted p-values in the input order, as statsmodels multipletests(method='holm'):
// sorted ascending, adj_(i) = max_{j<=i} min(1, (m - j + 1) p_(j)).
std::vector<double> holm_adjust(std::span<const double> p_values);

// The levels Holm's correction compares p-values with over m instances at level alpha,
// ascending: alpha / m, alpha / (m - 1), ..., alpha. Knowing on which side of each of them every
// p-value lies decides Holm: its step k asks p_(k) < alpha / (m - k + 1). Empty for m = 0.
std::vector<double> holm_levels(double alpha, std::size_t m);

// As statsmodels multipletests(method='fdr_bh'): adj_(i) = min(1, min_{j>=i} m p_(j) / j).
std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values);

}  // namespace isobench::stats
