// rank_vs_median.md / .json: the rank with the most GPU kernel time against
// the median rank, through the compare engine (compare_model.h): which
// kernels and regions make the straggler slower, and whether the difference
// is beyond noise. Written when two or more ranks ran kernels.
#pragma once

#include <optional>
#include <string>

#include "src/report/compare_model.h"
#include "src/report/report_set.h"

namespace llmpo::report {

// Whether two or more ranks ran kernels (cheap: RankVsMedian's precondition).
bool HasRanksWithKernels(const ReportSet& set);
// None unless two or more ranks ran kernels.
std::optional<CompareReport> RankVsMedian(const ReportSet& set);

std::string RankVsMedianMarkdown(const CompareReport& report);

}  // namespace llmpo::report
