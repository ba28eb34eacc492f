#include "kernel_record_buffer.hpp"

#include <atomic>
#include <cstring>

#include "segment.hpp"

namespace isobench::ipc {

bool publish_kernel_record(InstanceEntry& entry, std::uint32_t side, std::string_view text) {
  if (side >= kMaxSides || text.size() >= kKernelRecordBytes) return false;
  std::atomic_ref<std::uint32_t> state(entry.kernel_records_state[side]);
  auto expected = static_cast<std::uint32_t>(KernelRecordState::empty);
  if (!state.compare_exchange_strong(expected, static_cast<std::uint32_t>(KernelRecordState::writing),
                                     std::memory_order_acq_rel))
    return false;
  copy_text(entry.kernel_records[side], sizeof entry.kernel_records[side], text);
  state.store(static_cast<std::uint32_t>(KernelRecordState::ready), std::memory_order_release);
  return true;
}

std::optional<std::string> read_kernel_record(const InstanceEntry& entry, std::uint32_t side) {
  if (side >= kMaxSides) return std::nullopt;
  auto& state = const_cast<std::uint32_t&>(entry.kernel_records_state[side]);
  if (load_acquire(state) != static_cast<std::uint32_t>(KernelRecordState::ready)) return std::nullopt;
  const char* field = entry.kernel_records[side];
  std::string text(field, strnlen(field, sizeof entry.kernel_records[side]));
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return text;
}

}  // namespace isobench::ipc
