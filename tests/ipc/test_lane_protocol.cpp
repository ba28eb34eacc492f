// The lane protocol's transitions: what a worker may store next, and what the orchestrator may
// see at its next look.
#include <doctest/doctest.h>

#include "ipc/lane_protocol.hpp"

using namespace isobench::ipc;
using S = LaneState;

TEST_CASE("a worker moves one step at a time through its lifecycle, prepared only when gated") {
  const S path[] = {S::assigned, S::attached, S::waiting, S::setting_up, S::prepared, S::measuring, S::done};
  for (std::size_t i = 0; i + 1 < std::size(path); ++i) {
    CAPTURE(to_string(path[i]));
    CHECK(allowed_transition(path[i], path[i + 1]));
    CHECK_FALSE(allowed_transition(path[i + 1], path[i]));  // never back
  }
  CHECK(allowed_transition(S::setting_up, S::measuring));  // an ungated lane skips prepared
  CHECK_FALSE(allowed_transition(S::attached, S::setting_up));  // no skipping otherwise
  CHECK_FALSE(allowed_transition(S::waiting, S::measuring));
  CHECK_FALSE(allowed_transition(S::measuring, S::measuring));
  for (const S from : {S::assigned, S::attached, S::waiting, S::setting_up, S::prepared, S::measuring})
    CHECK(allowed_transition(from, S::failed));
  CHECK_FALSE(allowed_transition(S::done, S::failed));
  CHECK_FALSE(allowed_transition(S::failed, S::failed));
  CHECK_FALSE(allowed_transition(S::empty, S::attached));
}

TEST_CASE("the orchestrator may miss states between looks, never see one go back") {
  CHECK(reachable(S::assigned, S::done));       // a fast worker, seen only at its end
  CHECK(reachable(S::attached, S::attached));
  CHECK(reachable(S::measuring, S::failed));
  CHECK_FALSE(reachable(S::measuring, S::attached));
  CHECK_FALSE(reachable(S::done, S::measuring));
  CHECK_FALSE(reachable(S::done, S::failed));
  CHECK_FALSE(reachable(S::failed, S::done));
  CHECK_FALSE(reachable(S::assigned, static_cast<S>(42)));  // no state at all
  CHECK(to_string(static_cast<S>(42)) == "unknown");
  CHECK(to_string(S::setting_up) == "setting_up");
}
