#include "src/core/units.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "src/core/assign_if_changed.h"

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
  // A profile uses a few dozen unit spellings over millions of rows, in
  // rotation. A small direct-mapped memo answers most lookups with one string
  // compare; the map behind it keeps every spelling seen (bounded).
  struct Slot {
    std::string key;
    const UnitInfo* info = nullptr;
  };
  thread_local std::array<Slot, 64> memo;
  thread_local std::unordered_map<std::string, UnitInfo> cache;
  const std::size_t hash =
      unit.size() * 31 +
      (unit.empty() ? 0 : static_cast<unsigned char>(unit.front()) * 7 + static_cast<unsigned char>(unit.back()));
  Slot& slot = memo[hash % memo.size()];
  if (slot.info != nullptr && slot.key == unit) return *slot.info;
  auto it = cache.find(std::string(unit));
  if (it == cache.end()) {
    if (cache.size() >= 4096) {  // bounded; refills on demand
      cache.clear();
      for (Slot& s : memo) s.info = nullptr;
    }
    it = cache.emplace(std::string(unit), LookupUnitUncached(unit)).first;
  }
  slot.key.assign(unit);
  slot.info = &it->second;
  return *slot.info;
}

namespace {

// One side of a compound unit: canonical spelling and scale. Time in a
// denominator counts in seconds ("sector/us" -> "sector/second", x1e6).
std::optional<std::pair<std::string, double>> UnitPart(const std::string& lower, bool denominator) {
  if (auto simple = LookupSimple(lower)) {
    if (simple->dimension == Dimension::kTime && denominator)
      return std::pair(std::string("second"), simple->scale / 1e9);
    if (simple->dimension == Dimension::kBytes || simple->dimension == Dimension::kTime ||
        simple->dimension == Dimension::kPercent) {
      return std::pair(simple->canonical, simple->scale);
    }
    return std::nullopt;  // a frequency or rate inside a compound unit: not ours to guess
  }
  if (std::find(kCountUnits.begin(), kCountUnits.end(), lower) != kCountUnits.end() || lower == "register") {
    return std::pair(lower, 1.0);
  }
  return std::nullopt;
}

UnitInfo LookupUnitUncached(std::string_view unit) {
  const std::string lower = Lower(unit);
  if (auto simple = LookupSimple(lower)) return *simple;
  const auto slash = lower.find('/');
  if (slash != std::string::npos && lower.find('/', slash + 1) == std::string::npos) {
    auto num = LookupSimple(lower.substr(0, slash));
    auto den = LookupSimple(lower.substr(slash + 1));
    // Byte rates: <bytes>/<time> as "Gbyte/s", "byte/second", "Mbyte/usecond".
    if (num && den && num->dimension == Dimension::kBytes && den->dimension == Dimension::kTime) {
      return UnitInfo{Dimension::kByteRate, num->scale / (den->scale / 1e9), "byte/s", true};
    }
    // Other compound units, numerator and denominator normalised apart:
    // "Kbyte/block" -> byte/block x1e3. A byte prefix under the line is
    // ncu's display scaling of the whole value, not a per-kilobyte unit:
    // ncu 2025.3.1 printed one H200 report's derived__pct_occupancy_per_shared_mem_size
    // as 2.614 "%/Kbyte" and, with --print-units base, as 2614 "%/byte";
    // so "%/Kbyte" -> %/byte x1e3, as for a byte prefix above the line.
    auto top = UnitPart(lower.substr(0, slash), false);
    auto bottom = UnitPart(lower.substr(slash + 1), true);
    if (top && bottom) {
      const bool display_scaled = bottom->first == "byte";
      const double scale = display_scaled ? top->second * bottom->second : top->second / bottom->second;
      return UnitInfo{Dimension::kOther, scale, top->first + "/" + bottom->first, true};
    }
  }
  if (std::find(kCountUnits.begin(), kCountUnits.end(), lower) != kCountUnits.end()) {
    return UnitInfo{Dimension::kNone, 1.0, std::string(unit), true};
  }
  static const RE2 per_something("[a-z%]+/[a-z]+");
  if (RE2::FullMatch(lower, per_something)) return UnitInfo{Dimension::kOther, 1.0, std::string(unit), true};
  return UnitInfo{Dimension::kOther, 1.0, std::string(unit), false};
}

// A comma-grouped number, [-+]?\d{1,3}(,\d{3})+(\.\d+)? checked by hand
// rather than by RE2: this form is on many rows of ncu's details page.
std::optional<double> ParseCommaGrouped(std::string_view text) {
  char digits[64];
  std::size_t n = 0, i = 0;
  if (text.size() >= sizeof(digits)) return std::nullopt;
  if (text[0] == '-' || text[0] == '+') digits[n++] = text[i++];
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t lead = 0;
  while (i < text.size() && is_digit(text[i]) && lead < 4) digits[n++] = text[i++], ++lead;
  if (lead == 0 || lead > 3) return std::nullopt;
  std::size_t groups = 0;
  while (i + 3 < text.size() && text[i] == ',' && is_digit(text[i + 1]) && is_digit(text[i + 2]) &&
         is_digit(text[i + 3])) {
    digits[n++] = text[i + 1], digits[n++] = text[i + 2], digits[n++] = text[i + 3];
    i += 4;
    ++groups;
    if (i < text.size() && is_digit(text[i])) return std::nullopt;  // a group of four or more
  }
  if (groups == 0) return std::nullopt;
  if (i < text.size() && text[i] == '.') {
    digits[n++] = text[i++];
    const std::size_t fraction = i;
    while (i < text.size() && is_digit(text[i])) digits[n++] = text[i++];
    if (i == fraction) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  double value = 0;
  const char* begin = digits + (digits[0] == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(begin, digits + n, value);
  if (ec != std::errc() || ptr != digits + n) return std::nullopt;
  return value;
}

// Plain "-12.5" and grouped "1,772,899.25" decimals of at most 15 digits,
// the numbers on nearly every row of ncu's pages, without from_chars: the
// digits make an integer below 2^53 and 10^k (k <= 15) is a double, so one
// division rounds correctly and gives from_chars' own result (Clinger's
// fast path). Anything else (exponents, more digits, odd grouping) returns
// false and takes the general path. A bool and an out-parameter, not an
// optional: ParseNumber re-packing a returned optional<double> stalled on
// store-to-load forwarding (perf, 2026-11-26).
bool ShortDecimal(std::string_view text, double& out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p != end && *p == '-';
  if (p != end && (*p == '-' || *p == '+')) ++p;
  std::uint64_t mantissa = 0;
  int digits = 0, run = 0;  // run: digits since the start or the last group comma
  bool grouped = false;
  // Most values have no group commas: their leading digits in a tight loop.
  for (; p != end && static_cast<unsigned char>(*p - '0') < 10; ++p) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    ++digits;
    ++run;
  }
  for (; p != end; ++p) {
    const char c = *p;
    if (c >= '0' && c <= '9') {
      mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
      ++digits;
      ++run;
    } else if (c == ',' && run > 0 && (grouped ? run == 3 : run <= 3)) {
      grouped = true;
      run = 0;
    } else {
      break;
    }
  }
  if (run == 0 || (grouped && run != 3)) return false;
  int fraction = 0;
  if (p != end && *p == '.') {
    for (++p; p != end && *p >= '0' && *p <= '9'; ++p) {
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
      ++fraction;
    }
    if (fraction == 0) return false;
  }
  if (p != end || digits + fraction > 15) return false;
  // An integer needs no division (dividing by 1 is exact: the same bits).
  const double value = fraction == 0 ? static_cast<double>(mantissa) : static_cast<double>(mantissa) / kPow10[fraction];
  out = negative ? -value : value;
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// std::isspace in the "C" locale (the program never sets another), inline.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// A plain number as from_chars reads it, NaN and infinities included.
std::optional<double> PlainNumber(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc() && ptr == end) return value;
  return std::nullopt;
}

}  // namespace

bool IsNonFiniteNumber(std::string_view text) {
  const auto value = PlainNumber(Trimmed(text));
  return value && !std::isfinite(*value);
}

std::optional<double> ParseNumber(std::string_view text) {
  // Most values start with a digit or a sign and end with a digit: nothing
  // to trim and not "n/a", so the short form is tried first, as below.
  if (!text.empty() && IsDigit(text.back()) && (IsDigit(text.front()) || text.front() == '-' || text.front() == '+')) {
    if (double decimal = 0; ShortDecimal(text, decimal)) return decimal;
  }
  text = Trimmed(text);
  if (text.empty() || text == "n/a" || text == "N/A") return std::nullopt;
  if (double decimal = 0; ShortDecimal(text, decimal)) return decimal;
  if (auto plain = PlainNumber(text)) {  // fast path: a plain number, the common case
    if (!std::isfinite(*plain)) return std::nullopt;
    return plain;
  }
  if (auto grouped = ParseCommaGrouped(text)) return grouped;    // "1,772,899": common in ncu output
  static const RE2 dot_grouped("[-+]?\\d{1,3}(\\.\\d{3}){2,}");  // European grouping: "27.595.520"
  if (!RE2::FullMatch(text, dot_grouped)) return std::nullopt;
  std::string cleaned(text);
  std::erase(cleaned, '.');
  double value = 0;
  const char* end = cleaned.data() + cleaned.size();
  const char* begin = cleaned.data() + (cleaned.front() == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

void ParseValueInto(ParsedValue& out, std::string_view raw_value, std::string_view raw_unit) {
  AssignIfChanged(out.raw_unit, raw_unit);
  const UnitInfo& unit = LookupUnit(raw_unit);
  AssignIfChanged(out.unit, unit.canonical);
  out.dimension = unit.dimension;
  out.unit_known = unit.known;
  ParseNumberInto(out, raw_value, unit.scale);
}

void ParseNumberInto(ParsedValue& out, std::string_view raw_value, double scale) {
  out.raw_value.assign(raw_value);
  out.unparsable = false;
  out.value.reset();
  out.non_finite = false;
  if (auto number = ParseNumber(raw_value)) {
    const double scaled = *number * scale;
    if (std::isfinite(scaled)) {
      out.value = scaled;
    } else {  // finite as written, infinite in the canonical unit
      out.unparsable = true;
      out.non_finite = true;
    }
  } else {
    out.unparsable = !(raw_value.empty() || raw_value == "n/a" || raw_value == "N/A");
    out.non_finite = out.unparsable && IsNonFiniteNumber(raw_value);
  }
}

ParsedValue ParseValue(std::string_view raw_value, std::string_view raw_unit) {
  ParsedValue out;
  ParseValueInto(out, raw_value, raw_unit);
  return out;
}

}  // namespace llmpo
