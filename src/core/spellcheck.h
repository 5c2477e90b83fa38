// "Did you mean ...?" support: the closest candidate by edit distance.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace llmpo {

// Levenshtein distance (insert, delete, substitute all cost 1).
std::size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible
// typo: distance at most max(2, |word| / 3). Ties keep the first candidate.
std::optional<std::string> ClosestMatch(std::string_view word, std::span<const std::string> candidates);

}  // namespace llmpo
