#include "src/core/units.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <unordered_map>

namespace llmpo {
namespace {

struct UnitEntry {
  std::string_view spelling;  // lower case
  Dimension dimension;
  double scale;
};

constexpr std::array kUnits = {
    UnitEntry{"ns", Dimension::kTime, 1.0},
    UnitEntry{"nsecond", Dimension::kTime, 1.0},
    UnitEntry{"us", Dimension::kTime, 1e3},
    UnitEntry{"usecond", Dimension::kTime, 1e3},
    UnitEntry{"ms", Dimension::kTime, 1e6},
    UnitEntry{"msecond", Dimension::kTime, 1e6},
    UnitEntry{"s", Dimension::kTime, 1e9},
    UnitEntry{"second", Dimension::kTime, 1e9},
    UnitEntry{"byte", Dimension::kBytes, 1.0},
    UnitEntry{"b", Dimension::kBytes, 1.0},
    UnitEntry{"kbyte", Dimension::kBytes, 1e3},
    UnitEntry{"kb", Dimension::kBytes, 1e3},
    UnitEntry{"mbyte", Dimension::kBytes, 1e6},
    UnitEntry{"mb", Dimension::kBytes, 1e6},
    UnitEntry{"gbyte", Dimension::kBytes, 1e9},
    UnitEntry{"gb", Dimension::kBytes, 1e9},
    UnitEntry{"tbyte", Dimension::kBytes, 1e12},
    UnitEntry{"tb", Dimension::kBytes, 1e12},
    UnitEntry{"hz", Dimension::kFrequency, 1.0},
    UnitEntry{"khz", Dimension::kFrequency, 1e3},
    UnitEntry{"mhz", Dimension::kFrequency, 1e6},
    UnitEntry{"ghz", Dimension::kFrequency, 1e9},
    UnitEntry{"cycle/second", Dimension::kFrequency, 1.0},
    UnitEntry{"cycle/nsecond", Dimension::kFrequency, 1e9},
    UnitEntry{"cycle/usecond", Dimension::kFrequency, 1e6},
    UnitEntry{"cycle/ns", Dimension::kFrequency, 1e9},
    UnitEntry{"%", Dimension::kPercent, 1.0},
};

// Count-like units: the number is a plain quantity.
constexpr std::array<std::string_view, 14> kCountUnits = {"",      "inst",   "warp",    "block",    "thread",
                                                          "cycle", "sector", "request", "branches", "cluster",
                                                          "sm",    "pass",   "sample",  "sectors"};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::optional<UnitInfo> LookupSimple(const std::string& lower) {
  for (const auto& e : kUnits) {
    if (e.spelling == lower) {
      static constexpr std::array<std::string_view, 7> kCanonical = {"", "ns", "byte", "byte/s", "hz", "%", ""};
      return UnitInfo{e.dimension, e.scale, std::string(kCanonical[static_cast<int>(e.dimension)]), true};
    }
  }
  return std::nullopt;
}

UnitInfo LookupUnitUncached(std::string_view unit);

}  // namespace

const UnitInfo& LookupUnit(std::string_view unit) {
  // A profile uses a few dozen unit spellings over millions of rows; the
  // last one looked up is usually the next one too.
  thread_local std::unordered_map<std::string, UnitInfo> cache;
  thread_local std::string last_key = "\x01";
  thread_local const UnitInfo* last = nullptr;
  if (last != nullptr && unit == last_key) return *last;
  auto it = cache.find(std::string(unit));
  if (it == cache.end()) {
    if (cache.size() >= 4096) cache.clear();  // bounded; refills on demand
    it = cache.emplace(std::string(unit), LookupUnitUncached(unit)).first;
  }
  last_key.assign(unit);
  last = &it->second;
  return *last;
}

namespace {

UnitInfo LookupUnitUncached(std::string_view unit) {
  const std::string lower = Lower(unit);
  if (auto simple = LookupSimple(lower)) return *simple;
  // Byte rates: <bytes>/<time> as "Gbyte/s", "byte/second", "Mbyte/usecond".
  const auto slash = lower.find('/');
  if (slash != std::string::npos) {
    auto num = LookupSimple(lower.substr(0, slash));
    auto den = LookupSimple(lower.substr(slash + 1));
    if (num && den && num->dimension == Dimension::kBytes && den->dimension == Dimension::kTime) {
      return UnitInfo{Dimension::kByteRate, num->scale / (den->scale / 1e9), "byte/s", true};
    }
  }
  if (std::find(kCountUnits.begin(), kCountUnits.end(), lower) != kCountUnits.end()) {
    return UnitInfo{Dimension::kNone, 1.0, std::string(unit), true};
  }
  static const RE2 per_something("[a-z%]+/[a-z]+");
  if (RE2::FullMatch(lower, per_something)) return UnitInfo{Dimension::kOther, 1.0, std::string(unit), true};
  return UnitInfo{Dimension::kOther, 1.0, std::string(unit), false};
}

}  // namespace

std::optional<double> ParseNumber(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty() || text == "n/a" || text == "N/A") return std::nullopt;
  {  // fast path: a plain number, the common case
    double value = 0;
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc() && ptr == end) return value;
  }
  static const RE2 comma_grouped("[-+]?\\d{1,3}(,\\d{3})+(\\.\\d+)?");
  static const RE2 dot_grouped("[-+]?\\d{1,3}(\\.\\d{3}){2,}");
  std::string cleaned(text);
  if (RE2::FullMatch(text, comma_grouped)) {
    std::erase(cleaned, ',');
  } else if (RE2::FullMatch(text, dot_grouped)) {
    std::erase(cleaned, '.');
  }
  double value = 0;
  const char* end = cleaned.data() + cleaned.size();
  const char* begin = cleaned.data() + (cleaned.front() == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

void ParseValueInto(ParsedValue& out, std::string_view raw_value, std::string_view raw_unit) {
  out.raw_value.assign(raw_value);
  out.raw_unit.assign(raw_unit);
  const UnitInfo& unit = LookupUnit(raw_unit);
  out.unit.assign(unit.canonical);
  out.dimension = unit.dimension;
  out.unit_known = unit.known;
  out.unparsable = false;
  out.value.reset();
  if (auto number = ParseNumber(raw_value)) {
    out.value = *number * unit.scale;
  } else {
    out.unparsable = !(raw_value.empty() || raw_value == "n/a" || raw_value == "N/A");
  }
}

ParsedValue ParseValue(std::string_view raw_value, std::string_view raw_unit) {
  ParsedValue out;
  ParseValueInto(out, raw_value, raw_unit);
  return out;
}

}  // namespace llmpo
