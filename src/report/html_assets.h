// The stylesheet and script report.html inlines (no file is loaded).
#pragma once

#include <string>
#include <string_view>

namespace llmpo::report {

std::string_view HtmlStyle();
// Builds the tables from the embedded JSON (sort, filter) and zooms the
// region icicles; sets <body data-ready="1"> when done.
const std::string& HtmlScript();

// compare.html: rules added after HtmlStyle(), and the shared table script
// with its own start-up (tables from data.tables[data-table]).
std::string_view CompareHtmlStyle();
const std::string& CompareHtmlScript();

// Content-Security-Policy of both pages: nothing may be loaded; inline style
// and script only.
inline constexpr const char* kHtmlCsp =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

}  // namespace llmpo::report
