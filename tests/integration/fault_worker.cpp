// A worker that fails on demand, for the orchestrator's fault tests. It is the real worker
// (run_worker) plus one injected fault chosen by ISOBENCH_TEST_FAULT:
//   segv | abort | exit7 | hang      fail before doing anything
//   segv-after:K                     die by SIGSEGV once K tasks are done (samples already written)
//   segv-at:STATE                    die by SIGSEGV once its lane is in STATE or a later one (a
//                                    LaneState's name: prepared, waiting for its turn in a set-up
//                                    batch; done, holding its exit), never exiting before it
//   forge                            write a sample with a wrong token into the first slot, then work
//   slow-exit:MS | hang-exit         finish every task, then take MS milliseconds (or forever) to exit,
//                                    as a slow CUDA teardown would
//   abort-group                      (a rank) abort its rank group, as a failing rank does, then hang
//   lane-backwards                   once a task is done, keep writing its lane's state back to
//                                    attached, as a stray process would (no such move is allowed)
// With ISOBENCH_TEST_FAULT_RANK=R only rank R of a multi-rank group faults (the others run).
// With ISOBENCH_TEST_FAULT_ONCE=FILE the fault happens only in the first worker (FILE marks it).
// With ISOBENCH_TEST_FAULT_NTH=N and ISOBENCH_TEST_FAULT_COUNTER=FILE it happens only in the N-th
// worker started (0-based; FILE counts the workers, one byte each); NTH=N,M,... in each of those.
// With ISOBENCH_TEST_UNFAULTED_DELAY_MS=MS a worker the fault spares sleeps MS milliseconds before it
// starts (its batch is released late: faulted batch-mates die before their release).

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "ipc/rank_group.hpp"
#include "ipc/segment.hpp"
#include "worker/worker_session.hpp"

using namespace isobench;

int main(int argc, char** argv) {
  worker::WorkerOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--segment") options.segment = argv[i + 1];
    if (key == "--lane") options.lane = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    if (key == "--token") options.token = std::stoull(argv[i + 1]);
    if (key == "--device") options.device = std::stoi(argv[i + 1]);
    if (key == "--rank") options.rank = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    if (key == "--world") options.world = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    if (key == "--group") options.group = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
  }
  const char* fault_env = std::getenv("ISOBENCH_TEST_FAULT");
  std::string fault = fault_env ? fault_env : "";
  if (const char* rank = std::getenv("ISOBENCH_TEST_FAULT_RANK"); rank && std::stoul(rank) != options.rank)
    fault.clear();  // before ONCE: the other ranks must not use up the single fault
  if (const char* once = std::getenv("ISOBENCH_TEST_FAULT_ONCE"); once && !fault.empty()) {
    // Created exclusively: of two workers starting together (pre-start), exactly one takes it.
    const int fd = ::open(once, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      fault.clear();
    } else {
      (void)!::write(fd, "fault injected\n", 15);
      ::close(fd);
    }
  }
  if (const char* nth = std::getenv("ISOBENCH_TEST_FAULT_NTH")) {
    const char* counter = std::getenv("ISOBENCH_TEST_FAULT_COUNTER");
    // Counted under a lock: workers starting together must not read the same count.
    const int fd = counter ? ::open(counter, O_WRONLY | O_CREAT | O_APPEND, 0600) : -1;
    off_t index = -1;
    if (fd >= 0) {
      ::flock(fd, LOCK_EX);
      index = ::lseek(fd, 0, SEEK_END);
      (void)!::write(fd, "x", 1);
      ::close(fd);  // releases the lock
    }
    bool listed = false;
    for (std::string rest = nth; !rest.empty();) {
      const auto comma = rest.find(',');
      listed |= index == std::stol(rest.substr(0, comma));
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
    if (!listed) fault.clear();
  }
  if (const char* delay = std::getenv("ISOBENCH_TEST_UNFAULTED_DELAY_MS"); delay && fault.empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(std::stol(delay)));
  if (fault == "segv") raise(SIGSEGV);
  if (fault == "abort") std::abort();
  if (fault == "exit7") return 7;
  if (fault == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (fault == "abort-group") {
    auto seg = ipc::Segment::attach(options.segment);
    ipc::abort_rank_group(ipc::RankTable(seg), options.group, options.rank + 1);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (fault == "forge") {
    auto seg = ipc::Segment::attach(options.segment);
    const ipc::Task first = seg.lane_tasks(options.lane)[0];
    auto& slot = seg.slot(first.slot);
    slot.instance = first.instance;
    slot.token = options.token ^ 0xdeadbeef;
    slot.values.value_s = 1e-9;
    slot.values.inner = seg.instance(first.instance).inner;
    ipc::store_release(slot.state, static_cast<std::uint32_t>(ipc::SlotState::written));
    // Give the orchestrator time to see (and reject) the forged sample before the real one.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (fault.rfind("segv-after:", 0) == 0) {
    const std::uint32_t k = static_cast<std::uint32_t>(std::stoul(fault.substr(11)));
    std::thread watcher([options, k] {
      auto seg = ipc::Segment::attach(options.segment);
      auto& lane = seg.lane(options.lane);
      while (ipc::load_acquire(lane.tasks_done) < k) std::this_thread::sleep_for(std::chrono::microseconds(50));
      raise(SIGSEGV);
    });
    watcher.detach();
  }
  if (fault.rfind("segv-at:", 0) == 0) {
    std::uint32_t target = 0;
    while (target <= static_cast<std::uint32_t>(ipc::LaneState::failed) &&
           ipc::to_string(static_cast<ipc::LaneState>(target)) != fault.substr(8))
      ++target;
    // A later state counts: a watcher the scheduler kept waiting past STATE still fires.
    std::thread watcher([options, target] {
      auto seg = ipc::Segment::attach(options.segment);
      auto& lane = seg.lane(options.lane);
      while (ipc::load_acquire(lane.state) < target) std::this_thread::sleep_for(std::chrono::microseconds(50));
      raise(SIGSEGV);
    });
    watcher.detach();
  }
  if (fault == "lane-backwards") {
    std::thread scribbler([options] {
      auto seg = ipc::Segment::attach(options.segment);
      auto& lane = seg.lane(options.lane);
      while (ipc::load_acquire(lane.tasks_done) < 1) std::this_thread::sleep_for(std::chrono::microseconds(50));
      for (;;) {  // again and again, as a stray writer would, so no look can miss it
        ipc::store_release(lane.state, static_cast<std::uint32_t>(ipc::LaneState::attached));
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    });
    scribbler.detach();
  }
  const int code = worker::run_worker(options);
  if (fault.rfind("segv-at:", 0) == 0)  // the watcher fires: the worker never ends on its own
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (fault.rfind("slow-exit:", 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(fault.substr(10))));
  if (fault == "hang-exit")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  return code;
}
