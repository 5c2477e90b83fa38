#include "src/report/category_colour.h"

#include <array>
#include <utility>

#include "src/report/html_charts.h"

namespace llmpo::report {

std::string CategoryColour(std::string_view category) {
  // Hues apart from each other (Tableau-like); "other" is grey.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kColours = {{
      {"gemm", "#4e79a7"},
      {"attention", "#f28e2b"},
      {"communication", "#e15759"},
      {"memcpy/memset", "#76b7b2"},
      {"elementwise", "#59a14f"},
      {"normalization", "#edc948"},
      {"activation", "#b07aa1"},
      {"reduction", "#ff9da7"},
      {"embedding", "#9c755f"},
      {"moe", "#17becf"},
      {"moe-routing", "#bcbd22"},
      {"kv-cache", "#8c564b"},
      {"rotary", "#d37295"},
      {"other", "#bab0ac"},
  }};
  for (const auto& [name, colour] : kColours) {
    if (name == category) return std::string(colour);
  }
  return NameColour(category);
}

}  // namespace llmpo::report
