#pragma once
// The per-side kernel record buffers of an instance entry (--record-kernels). Every worker of a
// side that records offers its record; the first one claims the buffer with a compare-and-swap
// (empty -> writing), writes the text and publishes it (-> ready) with release order, so the
// orchestrator never reads half a record and a later worker never overwrites the first.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "segment_layout.hpp"

namespace isobench::ipc {

// Writes `text` into side `side`'s buffer unless a worker of that side already did. False when the
// buffer was taken, the side is out of range, or the text does not fit (never published cut).
bool publish_kernel_record(InstanceEntry& entry, std::uint32_t side, std::string_view text);

// The published text of side `side`, or nullopt while none is. Any process of the user can write
// the segment: the text is copied out and bytes outside printable ASCII become '?'.
std::optional<std::string> read_kernel_record(const InstanceEntry& entry, std::uint32_t side);

}  // namespace isobench::ipc
