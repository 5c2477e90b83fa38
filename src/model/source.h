// What kind of measurement an input holds, which decides how its numbers
// combine with other inputs' (src/analysis/region_combine.h) and which
// kernel times a run summary uses.
#pragma once

#include <string_view>

namespace llmpo::model {

// In precedence order: a timeline's durations are the program's own; ncu
// serialises and replays kernels; summaries know no per-launch data.
enum class SourceFamily { kTimeline, kNcu, kSummary };

std::string_view ToString(SourceFamily f);  // "timeline", "ncu", "nsys stats summary"

}  // namespace llmpo::model
