#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "ipc/instance_table.hpp"
#include "ipc/kernel_record_buffer.hpp"
#include "ipc/segment.hpp"

using namespace isobench::ipc;

namespace {

SegmentShape small_shape() {
  SegmentShape s;
  s.n_instances = 3;
  s.n_slots = 36;
  s.n_lanes = 2;
  s.tasks_per_lane = 36;
  WorkerInstance in;
  in.id = "cpu_copy[bytes=4096]";
  in.kernel = "cpu_copy";
  in.backend = "cpu";
  in.params = {{"bytes", 4096}};
  s.instances_json = encode_instances({in, in, in});
  return s;
}

}  // namespace

TEST_CASE("a created segment is private to its user and found by name") {
  auto seg = Segment::create(small_shape());
  CHECK(seg.name().rfind("isobench-", 0) == 0);
  struct stat st{};
  REQUIRE(stat(("/dev/shm/" + seg.name()).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(seg.header().owner_pid == getpid());

  auto other = Segment::attach(seg.name());
  seg.slot(5).values.value_s = 1.5;
  CHECK(other.slot(5).values.value_s == 1.5);
  CHECK(decode_instances(other.instances_json()).size() == 3);
  CHECK_THROWS_AS(other.slot(36), SegmentError);
  CHECK_THROWS_AS(other.lane(2), SegmentError);
}

TEST_CASE("two segments never share a name") {
  auto a = Segment::create(small_shape());
  auto b = Segment::create(small_shape());
  CHECK(a.name() != b.name());
}

TEST_CASE("the owner removes the segment; an attached view does not") {
  std::string name;
  {
    auto seg = Segment::create(small_shape());
    name = seg.name();
    { auto view = Segment::attach(name); }
    CHECK(std::filesystem::exists("/dev/shm/" + name));
  }
  CHECK_FALSE(std::filesystem::exists("/dev/shm/" + name));
  CHECK_THROWS_AS(Segment::attach(name), SegmentError);
}

TEST_CASE("attach refuses names outside the isobench namespace") {
  CHECK_THROWS_AS(Segment::attach("not-ours"), SegmentError);
  CHECK_THROWS_AS(Segment::attach("isobench-../../etc"), SegmentError);
}

TEST_CASE("validate_header rejects what a worker must not write into") {
  auto seg = Segment::create(small_shape());
  const Header good = seg.header();
  CHECK(validate_header(seg.base(), seg.size()).empty());

  Header& h = seg.header();
  h.magic ^= 1;
  CHECK(validate_header(seg.base(), seg.size()).find("magic") != std::string::npos);
  h = good;
  h.version = kProtocolVersion + 1;
  CHECK(validate_header(seg.base(), seg.size()).find("protocol version") != std::string::npos);
  h = good;
  h.struct_sizes[3] += 8;
  CHECK(validate_header(seg.base(), seg.size()).find("struct sizes") != std::string::npos);
  h = good;
  h.n_slots += 1000000;
  CHECK_FALSE(validate_header(seg.base(), seg.size()).empty());
  h = good;
  h.slots_offset += 64;
  CHECK(validate_header(seg.base(), seg.size()).find("offsets") != std::string::npos);
  h = good;
  CHECK(validate_header(seg.base(), sizeof(Header) - 1).find("smaller") != std::string::npos);
  CHECK(validate_header(seg.base(), good.total_bytes - 64).find("more bytes") != std::string::npos);
}

TEST_CASE("a worker refuses a segment with a bad header") {
  auto seg = Segment::create(small_shape());
  seg.header().version = 99;
  CHECK_THROWS_WITH_AS(Segment::attach(seg.name()), doctest::Contains("protocol version 99"), SegmentError);
}

TEST_CASE("segments of a dead orchestrator are removed on the next start") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t child = fork();
  if (child == 0) {
    auto seg = Segment::create(small_shape());
    const std::string name = seg.name();
    (void)!write(fds[1], name.c_str(), name.size() + 1);
    _exit(0);  // no destructor: the segment stays behind, as after SIGKILL
  }
  char buf[128] = {0};
  REQUIRE(read(fds[0], buf, sizeof buf) > 0);
  int status = 0;
  waitpid(child, &status, 0);
  const std::string name = buf;
  REQUIRE(std::filesystem::exists("/dev/shm/" + name));

  auto mine = Segment::create(small_shape());  // alive owner: must survive the sweep
  const auto removed = remove_stale_segments();
  CHECK(std::find(removed.begin(), removed.end(), name) != removed.end());
  CHECK_FALSE(std::filesystem::exists("/dev/shm/" + name));
  CHECK(std::filesystem::exists("/dev/shm/" + mine.name()));
  close(fds[0]);
  close(fds[1]);
}

TEST_CASE("the instance table round-trips and names the broken entry") {
  WorkerInstance in;
  in.id = "x[n=1]";
  in.kernel = "x";
  in.backend = "cuda";
  in.params = {{"n", 1}};
  in.seed = 42;
  in.measure.statistic = "min";
  in.measure.cold_cache = true;
  in.measure.slowdown_pct = 5;
  in.measure.record_kernels = true;
  const auto back = decode_instances(encode_instances({in}));
  REQUIRE(back.size() == 1);
  CHECK(back[0].id == "x[n=1]");
  CHECK(back[0].seed == 42);
  CHECK(back[0].measure.statistic == "min");
  CHECK(back[0].measure.cold_cache);
  CHECK(back[0].measure.slowdown_pct == 5);
  CHECK(back[0].measure.record_kernels);
  // Written before record_kernels existed: absent means off.
  auto older = nlohmann::json::parse(encode_instances({in}));
  older[0].erase("record_kernels");
  CHECK_FALSE(decode_instances(older.dump())[0].measure.record_kernels);
  CHECK_THROWS_WITH(decode_instances("[{\"id\": 1}]"), doctest::Contains("entry 0"));
  CHECK_THROWS(decode_instances("not json"));
}

TEST_CASE("a sealed slot: any change to what the worker wrote breaks the seal") {
  SampleSlot s{};
  s.instance = 2;
  s.token = 0x1234567890abcdefULL;
  s.values.value_s = 1.25e-5;
  s.values.sm_clock_mhz = 1980;
  s.values.inner = 20;
  s.values.begin_ns = 1000;
  s.values.end_ns = 251000;
  s.seal = seal_of(s, 7);
  CHECK(s.seal == seal_of(s, 7));
  CHECK(s.seal != seal_of(s, 8));  // the same contents in another slot
  SampleSlot changed = s;
  changed.values.value_s = 7.0;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.token ^= 1;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.values.end_ns += 1;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.values.host_enqueue_s = 1e-6;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.values.kernel_gpu_s = 1e-6;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.state = 1;  // the state is not sealed: it is what publishes the slot
  CHECK(seal_of(changed, 7) == s.seal);
}

TEST_CASE("a slot's host and kernel times travel through the segment under the seal") {
  auto seg = Segment::create(small_shape());
  auto worker = Segment::attach(seg.name());
  SampleSlot& written = worker.slot(3);
  written.instance = 1;
  written.token = 99;
  written.values.value_s = 2e-5;
  written.values.inner = 10;
  written.values.host_enqueue_s = 4.5e-6;
  written.values.kernel_gpu_s = 1.9e-5;
  written.seal = seal_of(written, 3);
  SampleSlot copy;
  std::memcpy(&copy, &seg.slot(3), sizeof copy);
  CHECK(copy.values.host_enqueue_s == 4.5e-6);
  CHECK(copy.values.kernel_gpu_s == 1.9e-5);
  CHECK(copy.seal == seal_of(copy, 3));
  seg.slot(3).values.kernel_gpu_s = 0;  // another process rewrites one after the worker sealed it
  std::memcpy(&copy, &seg.slot(3), sizeof copy);
  CHECK(copy.seal != seal_of(copy, 3));
}

TEST_CASE("kernel records: one buffer per side, the first writer of a side wins, readers see whole text") {
  auto seg = Segment::create(small_shape());
  auto worker = Segment::attach(seg.name());
  const std::string baseline = R"({"kernels":[{"name":"sm90_xmma_gemm_a"}]})";
  const std::string candidate = R"({"kernels":[{"name":"sm90_xmma_gemm_b"}]})";
  CHECK_FALSE(read_kernel_record(seg.instance(2), 0));
  CHECK(publish_kernel_record(worker.instance(2), 1, candidate));
  CHECK_FALSE(read_kernel_record(seg.instance(2), 0));  // side 1's record is not side 0's
  CHECK(read_kernel_record(seg.instance(2), 1) == candidate);
  CHECK(publish_kernel_record(worker.instance(2), 0, baseline));
  CHECK(read_kernel_record(seg.instance(2), 0) == baseline);
  // A later worker of the same side does not overwrite the first record.
  CHECK_FALSE(publish_kernel_record(worker.instance(2), 0, R"({"reason":"late"})"));
  CHECK(read_kernel_record(seg.instance(2), 0) == baseline);
  CHECK_FALSE(read_kernel_record(seg.instance(1), 0));  // other instances are untouched
  // Out of range sides and text that does not fit are refused, never published cut.
  CHECK_FALSE(publish_kernel_record(worker.instance(1), kMaxSides, baseline));
  CHECK_FALSE(publish_kernel_record(worker.instance(1), 0, std::string(kKernelRecordBytes, 'x')));
  CHECK_FALSE(read_kernel_record(seg.instance(1), 0));
  CHECK(publish_kernel_record(worker.instance(1), 0, std::string(kKernelRecordBytes - 1, 'x')));
  CHECK(read_kernel_record(seg.instance(1), 0)->size() == kKernelRecordBytes - 1);
  // A record claimed but not finished (a worker died while writing) is not read.
  seg.instance(0).kernel_records_state[0] = static_cast<std::uint32_t>(KernelRecordState::writing);
  std::memcpy(seg.instance(0).kernel_records[0], "{\"kern", 7);
  CHECK_FALSE(read_kernel_record(seg.instance(0), 0));
  // Bytes another process scribbled into a published record come out printable.
  seg.instance(2).kernel_records[1][2] = '\x01';
  CHECK(read_kernel_record(seg.instance(2), 1)->at(2) == '?');
}

TEST_CASE("the lane says which side's build a worker is") {
  auto seg = Segment::create(small_shape());
  seg.lane(1).side = 1;
  auto worker = Segment::attach(seg.name());
  CHECK(worker.lane(1).side == 1);
  CHECK(worker.lane(0).side == 0);
}
