// The artifact folder name both the worker and the orchestrator derive from an instance id.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "ipc/artifact_folder.hpp"

using isobench::ipc::artifact_folder_name;

namespace {

bool safe_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.size() > 120) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return false;
  return true;
}

}  // namespace

TEST_CASE("an instance id maps to a readable name plus the id's FNV-1a hash, the same in every build") {
  // Pinned: a run's artifacts.json and a later build's compare must agree on the folder.
  // (The hashes were computed independently, in Python.)
  CHECK(artifact_folder_name("example_stencil[n=8192,steps=20]") == "example_stencil_n_8192_steps_20-671eac8437a4b999");
  CHECK(artifact_folder_name("k[a=1,b=2]") == "k_a_1_b_2-329b37caa8efa9b0");
  CHECK(artifact_folder_name("k[a=1;b=2]") == "k_a_1_b_2-bffc43e2708f1235");
  CHECK(artifact_folder_name("example_stencil[n=8192,steps=20]") == artifact_folder_name("example_stencil[n=8192,steps=20]"));
}

TEST_CASE("ids that differ only in punctuation get distinct folders") {
  const std::string ids[] = {"k[a=1,b=2]", "k[a=1;b=2]", "k(a=1,b=2)", "k[a=1,,b=2]", "k[a=1, b=2]",
                             "k[a=1,b=2] ", "k/a=1,b=2", "k[a=1,b=2]\n"};
  std::set<std::string> names;
  for (const auto& id : ids) {
    CAPTURE(id);
    const auto name = artifact_folder_name(id);
    CHECK(safe_name(name));
    names.insert(name);
  }
  CHECK(names.size() == std::size(ids));
}

TEST_CASE("no id escapes its folder or makes a name the file system refuses") {
  const std::vector<std::string> ids = {"", ".", "..", "../../etc", "/abs/path", ".hidden[x=1]", "[x=\"a b\"]",
                                       "gemm[dtype=\"bf16\",note=\"\xc3\xa9\"]", std::string(1000, 'x'),
                                       std::string(500, '/') + "y"};
  for (const auto& id : ids) {
    CAPTURE(id);
    const auto name = artifact_folder_name(id);
    CHECK(safe_name(name));
    CHECK(name.find('/') == std::string::npos);
  }
  // Long ids are cut before the hash, which is of the whole id: two long ids sharing their first
  // 80 characters still differ.
  const std::string a = std::string(200, 'x') + "[n=1]", b = std::string(200, 'x') + "[n=2]";
  CHECK(artifact_folder_name(a) != artifact_folder_name(b));
  CHECK(artifact_folder_name(a).size() == 80 + 1 + 16);
}
