// The stylesheet and script report.html inlines (no file is loaded).
#pragma once

#include <string_view>

namespace llmpo::report {

std::string_view HtmlStyle();
// Builds the tables from the embedded JSON (sort, filter) and zooms the
// region icicles; sets <body data-ready="1"> when done.
std::string_view HtmlScript();

}  // namespace llmpo::report
