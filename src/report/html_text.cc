#include "src/report/html_text.h"

#include "src/core/utf8.h"
#include "src/report/json_writer.h"

namespace llmpo::report {
namespace {

std::string ValidUtf8(std::string_view text) {
  std::string out(text);
  ReplaceInvalidUtf8(out);
  return out;
}

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string HtmlText(std::string_view text) {
  const std::string valid = ValidUtf8(text);
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F) {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string HtmlShort(std::string_view text, std::size_t max_chars) {
  const std::string valid = ValidUtf8(text);
  std::size_t chars = 0, cut = valid.size();
  for (std::size_t i = 0; i < valid.size(); ++i) {
    if (IsContinuation(valid[i])) continue;
    if (chars == max_chars) {
      cut = i;
      break;
    }
    ++chars;
  }
  if (cut == valid.size()) return HtmlText(valid);
  // Room for the ellipsis: drop one more character.
  std::size_t keep = cut;
  do {
    --keep;
  } while (keep > 0 && IsContinuation(valid[keep]));
  return HtmlText(std::string_view(valid).substr(0, keep)) + "\xE2\x80\xA6";
}

std::string ScriptJson(const nlohmann::ordered_json& doc) {
  const std::string dumped = JsonCompactText(doc);
  std::string out;
  out.reserve(dumped.size());
  // < > & occur only inside JSON strings, where \u escapes mean the same.
  for (char c : dumped) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace llmpo::report
