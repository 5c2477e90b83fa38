// AssignIfChanged built with UBSan (-fsanitize=undefined, no recovery): an
// empty std::string_view may have a null data(), and memcmp with a null
// pointer is undefined even for length 0, so the sanitizer stops the
// program there. No GoogleTest: the check is that this exits 0.
#include <cstdio>
#include <string>
#include <string_view>

#include "src/core/assign_if_changed.h"

int main() {
  std::string to;
  const std::string_view empty;  // data() == nullptr
  int failures = 0;
  if (llmpo::AssignIfChanged(to, empty)) ++failures;
  if (!llmpo::AssignIfChanged(to, "unit")) ++failures;
  if (!llmpo::AssignIfChanged(to, empty) || !to.empty()) ++failures;
  if (failures != 0) std::fprintf(stderr, "AssignIfChanged: %d failed check(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
