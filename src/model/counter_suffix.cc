#include "src/model/counter_suffix.h"

namespace llmpo::model {

std::optional<TrailingNumber> FindTrailingNumber(std::string_view name) {
  std::size_t pos = name.size();
  while (pos > 0 && name[pos - 1] >= '0' && name[pos - 1] <= '9') --pos;
  const std::size_t digits = name.size() - pos;
  if (digits == 0 || digits > 18) return std::nullopt;
  std::int64_t value = 0;
  for (char c : name.substr(pos)) value = value * 10 + (c - '0');
  return TrailingNumber{pos, value};
}

std::optional<std::int64_t> NumberAfter(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  const auto number = FindTrailingNumber(name);
  if (!number || number->pos != prefix.size()) return std::nullopt;
  return number->value;
}

}  // namespace llmpo::model
