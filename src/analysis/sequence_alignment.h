// Order-aware alignment of two sequences (compare's launch order): Myers'
// O((N+M)D) difference (E. Myers, "An O(ND) Difference Algorithm and Its
// Variations", 1986) after the common head and tail are taken off, so two
// runs that differ by a few launches cost about their length. The result is
// a shortest edit script: a longest common subsequence kept as "same", the
// rest as deletions from the base and insertions in the new sequence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace llmpo::analysis {

enum class EditOp { kSame, kInsert, kDelete };

struct Edit {
  EditOp op = EditOp::kSame;
  std::size_t base = 0;  // index in the base sequence (kSame, kDelete)
  std::size_t next = 0;  // index in the new sequence (kSame, kInsert)
};

// Base and new positions in order, interleaved as a diff shows them.
// Nullopt when more than `max_edits` insertions and deletions would be
// needed (memory grows with the square of the edits; such sequences are
// too different for a position-by-position comparison to mean much).
std::optional<std::vector<Edit>> AlignSequences(std::span<const std::uint32_t> base,
                                                std::span<const std::uint32_t> next, std::size_t max_edits);

}  // namespace llmpo::analysis
