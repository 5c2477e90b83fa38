// The trailing number of a name, read one way everywhere a name's number is
// an instance counter: the region rule (analysis/instance_suffix.h), Kineto's
// ProfilerStep#N and compare's "#N" paths.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace llmpo::model {

struct TrailingNumber {
  std::size_t pos = 0;      // where the digits start
  std::int64_t value = 0;   // the digits' value
};

// The digits at the end of `name`, when there are some (at most 18, so the
// value fits; longer runs are no counter).
std::optional<TrailingNumber> FindTrailingNumber(std::string_view name);

// `name` is `prefix` followed by digits only ("ProfilerStep#" + "12").
std::optional<std::int64_t> NumberAfter(std::string_view name, std::string_view prefix);

}  // namespace llmpo::model
