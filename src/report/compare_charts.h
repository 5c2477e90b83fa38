// The SVG charts of compare.html, drawn from one Comparison as the model
// orders it (no chart library; text escaped with html_text.h; every mark
// carries a <title> with its numbers).
#pragma once

#include <cstddef>
#include <string>

#include "src/report/compare_model.h"

namespace llmpo::report {

// Base and new GPU kernel time of the first `top` kernels (the model's
// order: largest change first), two bars each on one scale.
std::string CompareBarsSvg(const Comparison& c, std::size_t top);

// The attribution as a waterfall: each row a step from the running sum,
// then the total change from 0 (it ends where the last step ends).
std::string WaterfallSvg(const Comparison& c);

}  // namespace llmpo::report
