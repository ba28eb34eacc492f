#pragma once
// A mapped shared-memory segment holding the layout of segment_layout.hpp. The orchestrator
// creates it (and removes it when the Segment is destroyed); a worker attaches to it by name
// and gets an exception, never a write, when the header does not match what it was built for.

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "segment_layout.hpp"

namespace isobench::ipc {

class SegmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SegmentShape {
  std::uint32_t n_instances = 0;
  std::uint32_t n_slots = 0;
  std::uint32_t n_lanes = 1;
  std::uint32_t tasks_per_lane = 0;
  std::string instances_json;  // a JSON array, one object per instance (kernel, params, settings)
  // Room after the tables for the rank-group table of multi-rank runs (ipc/rank_group.hpp);
  // 0 in runs without one. The header bounds it; the table validates its own layout.
  std::uint64_t rank_table_bytes = 0;
};

// Offsets of every table for a shape; the header stores them and attach() re-derives them.
Header compute_layout(const SegmentShape& shape);

// Checks a mapped header against the protocol and the mapped size. Empty when valid, else the
// problem ("bad magic", "protocol version 2, this build speaks 1", "tables overrun the segment").
std::string validate_header(const void* base, std::size_t mapped_bytes);

class Segment {
 public:
  static Segment create(const SegmentShape& shape);
  static Segment attach(const std::string& name);

  Segment(Segment&&) noexcept;
  Segment& operator=(Segment&&) noexcept;
  ~Segment();

  const std::string& name() const { return name_; }
  bool owner() const { return owner_; }
  std::size_t size() const { return size_; }

  // The header as mapped: other processes of the user can rewrite it.
  Header& header() const;
  // The header as created or validated at attach: counts and offsets to trust.
  const Header& layout() const;
  std::string_view instances_json() const;
  InstanceEntry& instance(std::uint32_t index) const;
  Lane& lane(std::uint32_t index) const;
  Task* lane_tasks(std::uint32_t lane_index) const;
  SampleSlot& slot(std::uint32_t index) const;
  void* base() const { return base_; }

 private:
  struct Mapping;
  Segment(std::string name, bool owner, std::unique_ptr<Mapping> mapping);
  std::string name_;
  bool owner_ = false;
  std::unique_ptr<Mapping> mapping_;
  char* base_ = nullptr;
  std::size_t size_ = 0;
};

// Atomic access to a field of a shared struct.
template <class T>
T load_acquire(T& field) {
  return std::atomic_ref<T>(field).load(std::memory_order_acquire);
}
template <class T>
void store_release(T& field, T value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_release);
}

// CLOCK_MONOTONIC in nanoseconds: one clock for every process on the machine.
std::uint64_t monotonic_ns();

// Removes segments named isobench-* whose owner process is gone (an orchestrator killed with
// SIGKILL). Returns the names removed.
std::vector<std::string> remove_stale_segments();

// Copies text into a fixed char field, always NUL-terminated.
void copy_text(char* field, std::size_t field_bytes, std::string_view text);

}  // namespace isobench::ipc
