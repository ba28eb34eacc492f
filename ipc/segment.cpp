#include "segment.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace bi = boost::interprocess;

namespace isobench::ipc {

namespace {

constexpr std::uint64_t kAlign = 64;
constexpr const char* kNamePrefix = "isobench-";

std::uint64_t align_up(std::uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

std::string unpredictable_name() {
  std::random_device rd;
  std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%d-%016llx", kNamePrefix, static_cast<int>(getpid()),
                static_cast<unsigned long long>(r));
  return buf;
}

}  // namespace

Header compute_layout(const SegmentShape& shape) {
  Header h{};
  h.magic = kMagic;
  h.version = kProtocolVersion;
  h.header_bytes = sizeof(Header);
  h.owner_pid = static_cast<std::int32_t>(getpid());
  h.n_instances = shape.n_instances;
  h.n_slots = shape.n_slots;
  h.n_lanes = shape.n_lanes;
  h.tasks_per_lane = shape.tasks_per_lane;
  h.instances_json_bytes = static_cast<std::uint32_t>(shape.instances_json.size());
  h.struct_sizes[0] = sizeof(InstanceEntry);
  h.struct_sizes[1] = sizeof(Lane);
  h.struct_sizes[2] = sizeof(Task);
  h.struct_sizes[3] = sizeof(SampleSlot);
  std::uint64_t at = align_up(sizeof(Header));
  h.instances_json_offset = at;
  at = align_up(at + h.instances_json_bytes);
  h.instances_offset = at;
  at = align_up(at + std::uint64_t{h.n_instances} * sizeof(InstanceEntry));
  h.lanes_offset = at;
  at = align_up(at + std::uint64_t{h.n_lanes} * sizeof(Lane));
  h.tasks_offset = at;
  at = align_up(at + std::uint64_t{h.n_lanes} * h.tasks_per_lane * sizeof(Task));
  h.slots_offset = at;
  at = align_up(at + std::uint64_t{h.n_slots} * sizeof(SampleSlot));
  h.rank_table_offset = at;
  h.rank_table_bytes = shape.rank_table_bytes;
  h.total_bytes = at + shape.rank_table_bytes;
  return h;
}

std::string validate_header(const void* base, std::size_t mapped_bytes) {
  if (mapped_bytes < sizeof(Header)) return "segment smaller than its header";
  Header h;
  std::memcpy(&h, base, sizeof h);
  if (h.magic != kMagic) return "bad magic: not an isobench segment";
  if (h.version != kProtocolVersion)
    return "protocol version " + std::to_string(h.version) + ", this build speaks " +
           std::to_string(kProtocolVersion);
  if (h.header_bytes != sizeof(Header) || h.struct_sizes[0] != sizeof(InstanceEntry) ||
      h.struct_sizes[1] != sizeof(Lane) || h.struct_sizes[2] != sizeof(Task) ||
      h.struct_sizes[3] != sizeof(SampleSlot))
    return "struct sizes differ from this build's";
  if (h.total_bytes > mapped_bytes) return "header claims more bytes than are mapped";
  SegmentShape shape;
  shape.n_instances = h.n_instances;
  shape.n_slots = h.n_slots;
  shape.n_lanes = h.n_lanes;
  shape.tasks_per_lane = h.tasks_per_lane;
  shape.instances_json.resize(0);
  if (h.rank_table_bytes > mapped_bytes) return "header claims more bytes than are mapped";
  shape.rank_table_bytes = h.rank_table_bytes;
  // Re-derive every offset from the counts: a header whose offsets disagree is rejected, so no
  // table can point outside the mapping.
  if (h.n_lanes == 0 || h.n_lanes > 4096 || h.n_instances > (1u << 24) || h.n_slots > (1u << 28) ||
      h.tasks_per_lane > (1u << 28))
    return "table counts out of range";
  Header expected = compute_layout(shape);
  const std::uint64_t json_room = align_up(h.instances_json_bytes);
  if (h.instances_json_offset != expected.instances_json_offset ||
      h.instances_offset != expected.instances_offset + json_room ||
      h.lanes_offset != expected.lanes_offset + json_room ||
      h.tasks_offset != expected.tasks_offset + json_room ||
      h.slots_offset != expected.slots_offset + json_room ||
      h.rank_table_offset != expected.rank_table_offset + json_room ||
      h.total_bytes != expected.total_bytes + json_room)
    return "table offsets inconsistent with the counts";
  return {};
}

struct Segment::Mapping {
  bi::shared_memory_object shm;
  bi::mapped_region region;
  // The header as created or as validated at attach. The tables are located through this copy,
  // never through the mapped header: any process of the user can write the mapping, and a
  // header rewritten after validation must not turn an index into a pointer outside the mapping.
  Header layout{};
};

Segment::Segment(std::string name, bool owner, std::unique_ptr<Mapping> mapping)
    : name_(std::move(name)), owner_(owner), mapping_(std::move(mapping)) {
  base_ = static_cast<char*>(mapping_->region.get_address());
  size_ = mapping_->region.get_size();
}

Segment::Segment(Segment&& o) noexcept
    : name_(std::move(o.name_)), owner_(o.owner_), mapping_(std::move(o.mapping_)),
      base_(o.base_), size_(o.size_) {
  o.owner_ = false;
  o.base_ = nullptr;
  o.size_ = 0;
}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    this->~Segment();
    new (this) Segment(std::move(o));
  }
  return *this;
}

Segment::~Segment() {
  if (owner_ && !name_.empty()) bi::shared_memory_object::remove(name_.c_str());
}

Segment Segment::create(const SegmentShape& shape) {
  const Header h = compute_layout(shape);
  const std::string name = unpredictable_name();
  bi::permissions perm;
  perm.set_permissions(0600);
  auto m = std::make_unique<Mapping>();
  try {
    m->shm = bi::shared_memory_object(bi::create_only, name.c_str(), bi::read_write, perm);
    m->shm.truncate(static_cast<bi::offset_t>(h.total_bytes));
    m->region = bi::mapped_region(m->shm, bi::read_write);
  } catch (const bi::interprocess_exception& e) {
    bi::shared_memory_object::remove(name.c_str());
    throw SegmentError("cannot create shared-memory segment " + name + ": " + e.what());
  }
  m->layout = h;
  Segment seg(name, true, std::move(m));
  // No memset: the object is new (create_only) and ftruncate extends it with zeros, page by page
  // as they are first touched, so a large sweep's per-instance records (18 KiB each) cost
  // /dev/shm only where a worker writes them.
  std::memcpy(seg.base_ + h.instances_json_offset, shape.instances_json.data(),
              shape.instances_json.size());
  std::memcpy(seg.base_, &h, sizeof h);
  return seg;
}

Segment Segment::attach(const std::string& name) {
  if (name.rfind(kNamePrefix, 0) != 0 || name.find('/') != std::string::npos)
    throw SegmentError("segment name '" + name + "' is not an isobench segment name");
  auto m = std::make_unique<Mapping>();
  try {
    m->shm = bi::shared_memory_object(bi::open_only, name.c_str(), bi::read_write);
    m->region = bi::mapped_region(m->shm, bi::read_write);
  } catch (const bi::interprocess_exception& e) {
    throw SegmentError("cannot open shared-memory segment " + name + ": " + e.what());
  }
  Segment seg(name, false, std::move(m));
  // Validate a private copy, then keep it: the mapped header may change after this check.
  Header h{};
  std::memcpy(&h, seg.base_, std::min(sizeof h, seg.size_));
  if (auto problem = validate_header(&h, seg.size_); !problem.empty())
    throw SegmentError("segment " + name + " rejected: " + problem);
  seg.mapping_->layout = h;
  return seg;
}

Header& Segment::header() const { return *reinterpret_cast<Header*>(base_); }

const Header& Segment::layout() const { return mapping_->layout; }

std::string_view Segment::instances_json() const {
  const Header& h = mapping_->layout;
  return {base_ + h.instances_json_offset, h.instances_json_bytes};
}

InstanceEntry& Segment::instance(std::uint32_t index) const {
  const Header& h = mapping_->layout;
  if (index >= h.n_instances) throw SegmentError("instance index out of range");
  return reinterpret_cast<InstanceEntry*>(base_ + h.instances_offset)[index];
}

Lane& Segment::lane(std::uint32_t index) const {
  const Header& h = mapping_->layout;
  if (index >= h.n_lanes) throw SegmentError("lane index out of range");
  return reinterpret_cast<Lane*>(base_ + h.lanes_offset)[index];
}

Task* Segment::lane_tasks(std::uint32_t lane_index) const {
  const Header& h = mapping_->layout;
  if (lane_index >= h.n_lanes) throw SegmentError("lane index out of range");
  return reinterpret_cast<Task*>(base_ + h.tasks_offset) +
         static_cast<std::size_t>(lane_index) * h.tasks_per_lane;
}

SampleSlot& Segment::slot(std::uint32_t index) const {
  const Header& h = mapping_->layout;
  if (index >= h.n_slots) throw SegmentError("slot index out of range");
  return reinterpret_cast<SampleSlot*>(base_ + h.slots_offset)[index];
}

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::vector<std::string> remove_stale_segments() {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kNamePrefix, 0) != 0) continue;
    Header h{};
    {
      std::ifstream in(entry.path(), std::ios::binary);
      if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) continue;
    }
    if (h.magic != kMagic || h.owner_pid <= 0) continue;
    if (kill(h.owner_pid, 0) == 0 || errno != ESRCH) continue;  // owner alive (or not ours to judge)
    if (bi::shared_memory_object::remove(name.c_str())) removed.push_back(name);
  }
  return removed;
}

void copy_text(char* field, std::size_t field_bytes, std::string_view text) {
  if (field_bytes == 0) return;
  const std::size_t n = std::min(field_bytes - 1, text.size());
  std::memcpy(field, text.data(), n);
  field[n] = '\0';
}

}  // namespace isobench::ipc
