#include "src/config/override.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <cctype>

#include "src/config/scalar.h"
#include "src/core/utf8.h"

namespace llmpo::config {
namespace {

// Characters that end an unquoted primitive inside a list or dict.
bool IsStructural(char c) { return c == ',' || c == ']' || c == '}' || c == '[' || c == '{'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

struct ParseFailure {
  std::size_t offset;
  std::string message;
};

// Recursive-descent parser for the value grammar. `pos` only moves forward.
class ValueParser {
 public:
  explicit ValueParser(std::string_view text) : text_(text) {}

  std::optional<Node> ParseTop() {
    SkipSpace();
    if (AtEnd()) return Node(std::string());  // "key=" means the empty string
    std::optional<Node> value = ParseElement(/*in_dict_key=*/false);
    if (!value) return std::nullopt;
    SkipSpace();
    if (!AtEnd()) {
      if (Peek() == ',') {
        return Fail(
            "comma-separated values are a Hydra multirun sweep: add -m/--multirun (profile, trace) to run one "
            "point per value, or write a list as [a,b] or quote the value");
      }
      return Fail(fmt::format("unexpected '{}' after the value", Peek()));
    }
    return value;
  }

  const ParseFailure& failure() const { return failure_; }

 private:
  std::optional<Node> ParseElement(bool in_dict_key) {
    SkipSpace();
    if (AtEnd()) return Fail("a value is missing here");
    switch (Peek()) {
      case '[':
        return ParseList();
      case '{':
        return ParseDict();
      case '\'':
      case '"':
        return ParseQuoted();
      default:
        return ParsePrimitive(in_dict_key);
    }
  }

  std::optional<Node> ParseList() {
    ++pos_;  // '['
    Node list = Node::array();
    SkipSpace();
    if (!AtEnd() && Peek() == ']') {
      ++pos_;
      return list;
    }
    while (true) {
      std::optional<Node> item = ParseElement(false);
      if (!item) return std::nullopt;
      list.push_back(std::move(*item));
      SkipSpace();
      if (AtEnd()) return Fail("this list is not closed: add ']'");
      if (Peek() == ']') {
        ++pos_;
        return list;
      }
      if (Peek() != ',') return Fail(fmt::format("expected ',' or ']' in a list, found '{}'", Peek()));
      ++pos_;
    }
  }

  std::optional<Node> ParseDict() {
    ++pos_;  // '{'
    Node dict = Node::object();
    SkipSpace();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return dict;
    }
    while (true) {
      std::optional<Node> key = ParseElement(/*in_dict_key=*/true);
      if (!key) return std::nullopt;
      SkipSpace();
      if (AtEnd() || Peek() != ':') return Fail("expected ':' after a dict key");
      ++pos_;
      std::optional<Node> value = ParseElement(false);
      if (!value) return std::nullopt;
      dict[ScalarToText(*key)] = std::move(*value);
      SkipSpace();
      if (AtEnd()) return Fail("this dict is not closed: add '}'");
      if (Peek() == '}') {
        ++pos_;
        return dict;
      }
      if (Peek() != ',') return Fail(fmt::format("expected ',' or '}}' in a dict, found '{}'", Peek()));
      ++pos_;
    }
  }

  std::optional<Node> ParseQuoted() {
    const char quote = Peek();
    const std::size_t start = pos_++;
    std::string out;
    while (!AtEnd() && Peek() != quote) {
      if (Peek() == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == quote || text_[pos_ + 1] == '\\')) {
        ++pos_;
      }
      out += text_[pos_++];
    }
    if (AtEnd()) {
      pos_ = start;
      return Fail(fmt::format("this quoted string has no closing {}", quote));
    }
    ++pos_;
    return Node(out);
  }

  // Unquoted text up to a structural character; ${...} may hold anything.
  std::optional<Node> ParsePrimitive(bool in_dict_key) {
    const std::size_t start = pos_;
    int interpolation_depth = 0;
    while (!AtEnd()) {
      const char c = Peek();
      if (c == '$' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '{') {
        ++interpolation_depth;
        pos_ += 2;
        continue;
      }
      if (interpolation_depth > 0) {
        if (c == '}') --interpolation_depth;
        ++pos_;
        continue;
      }
      if (IsStructural(c) || (in_dict_key && c == ':')) break;
      if (c == '\'' || c == '"') return Fail("a quote inside an unquoted value: quote the whole value");
      ++pos_;
    }
    if (interpolation_depth > 0) return Fail("'${' is not closed: add '}'");
    std::string_view raw = text_.substr(start, pos_ - start);
    while (!raw.empty() && IsSpace(raw.back())) raw.remove_suffix(1);
    if (raw.empty()) return Fail("a value is missing here");
    if (raw.find("${") != std::string_view::npos) return Node(std::string(raw));
    return TypePlainScalar(raw);
  }

  void SkipSpace() {
    while (!AtEnd() && IsSpace(Peek())) ++pos_;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  std::nullopt_t Fail(std::string message) {
    failure_ = {pos_, std::move(message)};
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  ParseFailure failure_;
};

Error OverrideError(std::string_view text, std::size_t offset, std::string_view message) {
  return MakeError(ExitStatus::kUsage, fmt::format("bad override '{}': {}", text, message))
      .WithNote(fmt::format("{}", text))
      .WithNote(fmt::format("{:>{}}", "^", offset + 1));
}

const RE2& GroupKeyPattern() {
  // group/sub/... or dotted.key, then optional @package.
  static const RE2 re("([A-Za-z0-9_][A-Za-z0-9_.\\-/\\[\\]]*)(?:@([A-Za-z0-9_.\\-]*))?");
  return re;
}

OverrideAction TakePrefix(std::string_view& text) {
  if (text.starts_with("++")) {
    text.remove_prefix(2);
    return OverrideAction::kForceAdd;
  }
  if (text.starts_with('+')) {
    text.remove_prefix(1);
    return OverrideAction::kAdd;
  }
  if (text.starts_with('~')) {
    text.remove_prefix(1);
    return OverrideAction::kDelete;
  }
  return OverrideAction::kChange;
}

}  // namespace

Result<Node> ParseOverrideValue(std::string_view text) {
  ValueParser parser(text);
  std::optional<Node> value = parser.ParseTop();
  if (!value) return OverrideError(text, parser.failure().offset, parser.failure().message);
  return std::move(*value);
}

Result<Override> ParseOverride(std::string_view text) {
  if (auto bad = FirstInvalidUtf8(text)) {
    return MakeError(ExitStatus::kUsage, fmt::format("bad override: byte {} is not valid UTF-8", *bad + 1))
        .WithNote("overrides must be UTF-8 text");
  }
  if (auto bad = FirstControlCharacter(text)) {
    return OverrideError(text, *bad, "control characters are not allowed in overrides");
  }
  Override ov;
  ov.text = std::string(text);
  std::string_view rest = text;
  ov.action = TakePrefix(rest);
  const std::size_t prefix_len = text.size() - rest.size();
  const std::size_t eq = rest.find('=');
  const std::string_view key_text = rest.substr(0, eq);
  if (key_text.empty()) return OverrideError(text, prefix_len, "the key is missing before '='");

  std::string key, package;
  if (!RE2::FullMatch(key_text, GroupKeyPattern(), &key, &package)) {
    std::size_t bad = 0;
    while (bad < key_text.size() && (std::isalnum(static_cast<unsigned char>(key_text[bad])) ||
                                     std::string_view("_.-/@[]").find(key_text[bad]) != std::string_view::npos)) {
      ++bad;
    }
    return OverrideError(text, prefix_len + bad,
                         "keys are letters, digits, '_', '-', '.', '/', with an optional @package");
  }
  ov.key = key;
  if (key_text.find('@') != std::string_view::npos) ov.package = package;

  if (eq == std::string_view::npos) {
    if (ov.action != OverrideAction::kDelete) {
      return OverrideError(
          text, text.size(),
          fmt::format("expected '=' and a value, as in {}=VALUE (or ~{} to delete it)", text, key_text));
    }
    return ov;
  }
  ov.value_text = std::string(rest.substr(eq + 1));
  ValueParser parser(ov.value_text);
  std::optional<Node> value = parser.ParseTop();
  if (!value) {
    return OverrideError(text, prefix_len + eq + 1 + parser.failure().offset, parser.failure().message);
  }
  ov.value = std::move(*value);
  return ov;
}

}  // namespace llmpo::config
