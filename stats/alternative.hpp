#pragma once

#include <string_view>

namespace isobench::stats {

// The alternative hypothesis of a two-sample test on samples x and y, with scipy's meaning:
//   less:    x tends to be smaller than y (P(X<Y) + P(X=Y)/2 > 1/2),
//   greater: x tends to be larger than y,
//   two_sided: either.
// With x = baseline and y = candidate times, "candidate slower" is Alternative::less.
enum class Alternative { two_sided, less, greater };

std::string_view to_string(Alternative alternative);

}  // namespace isobench::stats
