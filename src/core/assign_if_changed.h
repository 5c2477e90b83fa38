// Copying text into a string that is reused from record to record (a
// metric's name, section and unit repeat across millions of rows): when the
// string already holds that text, a compare is cheaper than the copy.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace llmpo {

// True when it copied, i.e. the text was different.
inline bool AssignIfChanged(std::string& to, std::string_view text) {
  if (to.size() == text.size() && std::memcmp(to.data(), text.data(), text.size()) == 0) return false;
  to.assign(text);
  return true;
}

}  // namespace llmpo
