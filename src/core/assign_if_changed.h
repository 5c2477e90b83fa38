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
  // memcmp's pointers must be valid even for length 0, and an empty
  // string_view's data() may be null.
  if (to.size() == text.size() && (text.empty() || std::memcmp(to.data(), text.data(), text.size()) == 0)) {
    return false;
  }
  to.assign(text);
  return true;
}

}  // namespace llmpo
