// Values as the Nsight tools print them, normalised: times to nanoseconds,
// byte counts to bytes (ncu's prefixes are 1000-based), rates to per second,
// frequencies to hertz. "n/a" and empty cells are missing, never zero. The
// raw text always travels beside the number.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmpo {

enum class Dimension {
  kNone,       // a count or a dimensionless number (unit "" or e.g. "inst", "warp")
  kTime,       // canonical unit "ns"
  kBytes,      // "byte"
  kByteRate,   // "byte/s"
  kFrequency,  // "hz"
  kPercent,    // "%"
  kOther,      // a unit we keep as written (e.g. "inst/cycle", "register/thread")
};

struct UnitInfo {
  Dimension dimension = Dimension::kNone;
  double scale = 1.0;     // multiply a value in this unit by scale to get the canonical unit
  std::string canonical;  // "ns", "byte", "byte/s", "hz", "%", or the unit as written
  bool known = true;      // false: not in our tables; kept as written, scale 1
};

// Looks up a unit spelling: ns/us/ms/s and nsecond/usecond/msecond/second,
// byte/Kbyte/Mbyte/Gbyte/Tbyte (also KB/MB/GB), their /s and /second rates,
// hz/khz/mhz/ghz (any case), %, and plain count units.
// The result stays valid until the next call on this thread.
const UnitInfo& LookupUnit(std::string_view unit);

struct ParsedValue {
  std::optional<double> value;  // nullopt: missing (n/a, empty) or unparsable
  bool unparsable = false;      // text present but not a number
  bool non_finite = false;      // with unparsable: a NaN or infinity ("nan", "inf", or too large once scaled)
  std::string unit;             // canonical unit (see UnitInfo)
  Dimension dimension = Dimension::kNone;
  bool unit_known = true;
  std::string raw_value;
  std::string raw_unit;
};

// Parses a number with optional thousands grouping ("10,240,000",
// "599,747,068.80", European "27.595.520") and applies the unit's scale.
ParsedValue ParseValue(std::string_view raw_value, std::string_view raw_unit);
// The same, into an existing value (its strings keep their buffers).
void ParseValueInto(ParsedValue& out, std::string_view raw_value, std::string_view raw_unit);
// The number part of ParseValueInto, for a value whose unit fields (raw_unit,
// unit, dimension, unit_known) ParseValueInto already set for the same unit
// text, `scale` being that unit's (LookupUnit(raw_unit).scale): a caller that
// reuses one value per column skips the unit lookup when the unit repeats.
void ParseNumberInto(ParsedValue& out, std::string_view raw_value, double scale);

// Just the number: grouping removed; nullopt for n/a, empty or garbage, and
// for NaN and infinities ("nan", "inf", "-infinity"): those never enter a sum
// or a sort, and callers report them as data loss (IsNonFiniteNumber).
std::optional<double> ParseNumber(std::string_view text);

// True for text that spells a NaN or an infinity, which ParseNumber refuses.
bool IsNonFiniteNumber(std::string_view text);

}  // namespace llmpo
