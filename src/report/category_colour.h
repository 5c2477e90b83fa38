// One fixed, distinct colour per kernel category of the default rules
// (analysis/kernel_category.cc) on report.html, so no two categories share
// a hue as hashed colours can; a user's own category gets a hashed colour.
#pragma once

#include <string>
#include <string_view>

namespace llmpo::report {

std::string CategoryColour(std::string_view category);

}  // namespace llmpo::report
