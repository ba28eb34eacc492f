#pragma once

#include <span>
#include <vector>

namespace isobench::stats {

// Adjusted p-values in the input order, as statsmodels multipletests(method='holm'):
// sorted ascending, adj_(i) = max_{j<=i} min(1, (m - j + 1) p_(j)).
std::vector<double> holm_adjust(std::span<const double> p_values);

// As statsmodels multipletests(method='fdr_bh'): adj_(i) = min(1, min_{j>=i} m p_(j) / j).
std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values);

}  // namespace isobench::stats
