// Text made safe for report.html: element text and attribute values, and a
// JSON document embedded in a <script> element.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace llmpo::report {

// Text for an element or a double-quoted attribute: & < > " ' escaped,
// invalid UTF-8 replaced with U+FFFD, control characters (newlines
// included) shown as spaces.
std::string HtmlText(std::string_view text);

// The same, shortened to at most `max_chars` characters (code points) with
// "…" when longer (never cut inside a UTF-8 character).
std::string HtmlShort(std::string_view text, std::size_t max_chars);

// A JSON document for <script type="application/json">: invalid UTF-8
// replaced, and < > & written as \u003c \u003e \u0026, so no string in it
// (a kernel named "</script>") can end the element or start markup.
std::string ScriptJson(const nlohmann::ordered_json& doc);

}  // namespace llmpo::report
