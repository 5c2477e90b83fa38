// Text for report.html with its web addresses as links: ncu's rule texts
// carry "@url:Text:URL@" markup, which the importers print "Text (URL)"
// (Markdown keeps that plain URL); the page makes each http(s) address a
// link that opens in a new tab.
#pragma once

#include <string>
#include <string_view>

namespace llmpo::report {

// HtmlText(text) with every "http://" or "https://" address as an <a>.
std::string HtmlTextWithLinks(std::string_view text);

}  // namespace llmpo::report
