#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/sample_journal.hpp"

using namespace isobench::orchestrator;

namespace {

std::string temp_path(const std::string& stem) {
  return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(getpid()) + ".jsonl")).string();
}

SampleRecord record(std::uint32_t slot, double value) {
  SampleRecord r;
  r.instance = "cpu_copy[bytes=4096]";
  r.slot = slot;
  r.sample = slot;
  r.values.value_s = value;
  r.values.inner = 10;
  r.worker_pid = 1234;
  r.values.flags = isobench::ipc::flag_low_sm_clock;
  return r;
}

}  // namespace

TEST_CASE("appended samples read back exactly, events apart") {
  const auto path = temp_path("journal-roundtrip");
  std::filesystem::remove(path);
  {
    SampleJournal j(path);
    j.append(record(0, 1.25e-6));
    j.append_event({{"type", "worker_failure"}, {"reason", "killed by SIGSEGV"}});
    j.append(record(1, 2.5e-6));
  }
  const auto c = read_journal(path);
  REQUIRE(c.samples.size() == 2);
  CHECK(c.samples[0].values.value_s == 1.25e-6);
  CHECK(c.samples[1].slot == 1);
  CHECK(c.samples[0].values.flags == isobench::ipc::flag_low_sm_clock);
  {  // the journal names the flags; bits stay inside the processes
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    CHECK(first.find("\"flags\":[\"low_sm_clock\"]") != std::string::npos);
  }
  REQUIRE(c.events.size() == 1);
  CHECK(c.events[0]["reason"] == "killed by SIGSEGV");
  CHECK_FALSE(c.dropped_torn_tail);
  std::filesystem::remove(path);
}

TEST_CASE("a torn last line is dropped, never parsed, and cut off before appending") {
  const auto path = temp_path("journal-torn");
  std::filesystem::remove(path);
  {
    SampleJournal j(path);
    j.append(record(0, 1e-6));
  }
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"type":"sample","instance":"cpu_copy[bytes=4096]","value":9.9)";  // killed mid-write
  }
  auto c = read_journal(path);
  CHECK(c.samples.size() == 1);
  CHECK(c.dropped_torn_tail);
  truncate_journal(path, c.valid_bytes);
  {
    SampleJournal j(path);
    j.append(record(1, 2e-6));
  }
  c = read_journal(path);
  CHECK_FALSE(c.dropped_torn_tail);
  REQUIRE(c.samples.size() == 2);
  CHECK(c.samples[1].values.value_s == 2e-6);
  std::filesystem::remove(path);
}

TEST_CASE("a complete-looking last line without its newline is still torn") {
  const auto path = temp_path("journal-nonl");
  std::filesystem::remove(path);
  {
    std::ofstream out(path);
    out << record(0, 1e-6).to_json().dump() << "\n" << record(1, 5e-6).to_json().dump();
  }
  const auto c = read_journal(path);
  CHECK(c.samples.size() == 1);
  CHECK(c.dropped_torn_tail);
  std::filesystem::remove(path);
}

TEST_CASE("damage before the last line is an error naming the line") {
  const auto path = temp_path("journal-damaged");
  {
    std::ofstream out(path);
    out << record(0, 1e-6).to_json().dump() << "\n{garbage\n" << record(1, 5e-6).to_json().dump() << "\n";
  }
  CHECK_THROWS_WITH(read_journal(path), doctest::Contains(":2: damaged line"));
  std::filesystem::remove(path);
}

TEST_CASE("a missing journal reads as empty") {
  const auto c = read_journal("/nonexistent/samples.jsonl");
  CHECK(c.samples.empty());
}

TEST_CASE("a sample's GPU (index, UUID, name) reads back; journals from before --gpus read without one") {
  SampleRecord r = record(3, 4e-6);
  r.gpu = 1;
  r.gpu_uuid = "GPU-3f1c2a9e-6b7d-4e21-9c0a-55aa12ff0b31";
  r.gpu_name = "NVIDIA H200";
  const auto back = SampleRecord::from_json(nlohmann::json::parse(r.to_json().dump()));
  CHECK(back.gpu == 1);
  CHECK(back.gpu_uuid == r.gpu_uuid);
  CHECK(back.gpu_name == "NVIDIA H200");

  auto old = record(3, 4e-6).to_json();  // a CPU sample of an old journal: no GPU fields at all
  CHECK_FALSE(old.contains("gpu"));
  CHECK_FALSE(old.contains("gpu_uuid"));
  const auto read = SampleRecord::from_json(old);
  CHECK(read.gpu == -1);
  CHECK(read.gpu_uuid.empty());

  old["gpu"] = "0";
  CHECK_THROWS(SampleRecord::from_json(old));
}

TEST_CASE("every sample flag reaches the journal by its name and reads back as its bit") {
  const auto path = temp_path("journal-flags");
  std::filesystem::remove(path);
  std::uint32_t all = 0;
  for (const auto& f : isobench::ipc::kSampleFlags) all |= f.bit;
  {
    SampleJournal j(path);
    auto r = record(0, 1e-6);
    r.values.flags = all;
    j.append(r);
  }
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  // blocking_timeout had no bit in the slot before the flag list: a sample that may hold launch
  // latency must say so in the journal.
  CHECK(line.find("\"flags\":[\"low_sm_clock\",\"graph_fallback\",\"blocking_timeout\",\"summary\"]") != std::string::npos);
  CHECK(read_journal(path).samples.at(0).values.flags == all);
  std::filesystem::remove(path);
}
