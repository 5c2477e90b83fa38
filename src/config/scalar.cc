#include "src/config/scalar.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <cmath>
#include <limits>

namespace llmpo::config {
namespace {

const RE2& NullPattern() {
  static const RE2 re("(?i)(~|null)");
  return re;
}
const RE2& BoolPattern() {
  static const RE2 re("(?i)(true|false)");
  return re;
}
const RE2& IntPattern() {
  static const RE2 re("[-+]?[0-9][0-9_]*");
  return re;
}
const RE2& HexOctPattern() {
  static const RE2 re("0(x[0-9a-fA-F_]+|o[0-7_]+)");
  return re;
}
const RE2& FloatPattern() {
  // Needs a dot or an exponent, so plain ints never match here.
  static const RE2 re(
      "[-+]?(\\.[0-9]+|[0-9][0-9_]*\\.[0-9_]*|[0-9][0-9_]*(\\.[0-9_]*)?[eE][-+]?[0-9]+"
      "|\\.[0-9]+[eE][-+]?[0-9]+)");
  return re;
}
const RE2& SpecialFloatPattern() {
  static const RE2 re("(?i)([-+]?\\.?inf|\\.?nan)");
  return re;
}

std::string WithoutUnderscores(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

Node TypeNumber(std::string_view text) {
  const std::string digits = WithoutUnderscores(text);
  try {
    if (RE2::FullMatch(text, HexOctPattern())) {
      const int base = (digits[1] == 'x') ? 16 : 8;
      return Node(static_cast<std::int64_t>(std::stoll(digits.substr(2), nullptr, base)));
    }
    if (RE2::FullMatch(text, IntPattern())) {
      return Node(static_cast<std::int64_t>(std::stoll(digits)));
    }
    return Node(std::stod(digits));
  } catch (const std::out_of_range&) {
    return Node(std::string(text));  // too large to hold exactly: keep the text
  }
}

}  // namespace

Node TypePlainScalar(std::string_view text) {
  if (text.empty() || RE2::FullMatch(text, NullPattern())) return Node(nullptr);
  if (RE2::FullMatch(text, BoolPattern())) return Node(text[0] == 't' || text[0] == 'T');
  if (RE2::FullMatch(text, IntPattern()) || RE2::FullMatch(text, HexOctPattern()) ||
      RE2::FullMatch(text, FloatPattern())) {
    return TypeNumber(text);
  }
  if (RE2::FullMatch(text, SpecialFloatPattern())) {
    const bool negative = text[0] == '-';
    if (text.find_first_of("nN") != std::string_view::npos && text.find_first_of("aA") != std::string_view::npos) {
      return Node(std::numeric_limits<double>::quiet_NaN());
    }
    const double inf = std::numeric_limits<double>::infinity();
    return Node(negative ? -inf : inf);
  }
  return Node(std::string(text));
}

bool NeedsQuotesToStayString(std::string_view text) { return !TypePlainScalar(text).is_string(); }

std::string ScalarToText(const Node& node) {
  if (node.is_string()) return node.get<std::string>();
  if (node.is_null()) return "null";
  if (node.is_boolean()) return node.get<bool>() ? "true" : "false";
  if (node.is_number_float()) {
    const double v = node.get<double>();
    if (std::isnan(v)) return ".nan";
    if (std::isinf(v)) return v < 0 ? "-.inf" : ".inf";
    std::string text = fmt::format("{}", v);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
  }
  return node.dump();
}

}  // namespace llmpo::config
