#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "ipc/instance_table.hpp"
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
  seg.slot(5).value_s = 1.5;
  CHECK(other.slot(5).value_s == 1.5);
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
  in.statistic = "min";
  in.cold_cache = true;
  in.slowdown_pct = 5;
  const auto back = decode_instances(encode_instances({in}));
  REQUIRE(back.size() == 1);
  CHECK(back[0].id == "x[n=1]");
  CHECK(back[0].seed == 42);
  CHECK(back[0].statistic == "min");
  CHECK(back[0].cold_cache);
  CHECK(back[0].slowdown_pct == 5);
  CHECK_THROWS_WITH(decode_instances("[{\"id\": 1}]"), doctest::Contains("entry 0"));
  CHECK_THROWS(decode_instances("not json"));
}

TEST_CASE("a sealed slot: any change to what the worker wrote breaks the seal") {
  SampleSlot s{};
  s.instance = 2;
  s.token = 0x1234567890abcdefULL;
  s.value_s = 1.25e-5;
  s.sm_clock_mhz = 1980;
  s.inner = 20;
  s.begin_ns = 1000;
  s.end_ns = 251000;
  s.seal = seal_of(s, 7);
  CHECK(s.seal == seal_of(s, 7));
  CHECK(s.seal != seal_of(s, 8));  // the same contents in another slot
  SampleSlot changed = s;
  changed.value_s = 7.0;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.token ^= 1;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.end_ns += 1;
  CHECK(seal_of(changed, 7) != s.seal);
  changed = s;
  changed.state = 1;  // the state is not sealed: it is what publishes the slot
  CHECK(seal_of(changed, 7) == s.seal);
}
