#include "src/report/html_links.h"

#include <fmt/format.h>

#include "src/report/html_text.h"

namespace llmpo::report {
namespace {

// Where the address starting at `at` ends: at white space, a quote, angle
// bracket or closing parenthesis; a trailing full stop or comma is prose.
std::size_t UrlEnd(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size()) {
    const char c = text[end];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ')' || c == '"' || c == '\'' || c == '<' ||
        c == '>')
      break;
    ++end;
  }
  while (end > at && (text[end - 1] == '.' || text[end - 1] == ',' || text[end - 1] == ';')) --end;
  return end;
}

std::size_t NextUrl(std::string_view text, std::size_t from) {
  const std::size_t https = text.find("https://", from), http = text.find("http://", from);
  return std::min(https, http);
}

}  // namespace

std::string HtmlTextWithLinks(std::string_view text) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = NextUrl(text, 0); at != std::string_view::npos; at = NextUrl(text, from)) {
    const std::size_t end = UrlEnd(text, at);
    const std::size_t scheme = text.compare(at, 8, "https://") == 0 ? 8 : 7;
    if (end <= at + scheme) {  // a bare scheme: not an address
      out += HtmlText(text.substr(from, end - from));
      from = end;
      continue;
    }
    out += HtmlText(text.substr(from, at - from));
    const std::string url = HtmlText(text.substr(at, end - at));
    out += fmt::format(R"(<a href="{0}" target="_blank" rel="noopener noreferrer">{0}</a>)", url);
    from = end;
  }
  out += HtmlText(text.substr(from));
  return out;
}

}  // namespace llmpo::report
