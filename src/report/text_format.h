// Formatting shared by the Markdown and CSV writers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/metric_selection.h"
#include "src/model/diagnostics.h"

namespace llmpo::report {

// A table cell: '|' escaped, CR and LF (which would end the table row)
// written as spaces, long text shortened (never inside a UTF-8 character).
std::string MdCell(std::string_view text, std::size_t width = 100);
// A region path ("a > b > c") as a table cell: when too long, its first
// part and as many of its last parts as fit, joined by " > ... > ", so that
// rows of paths that differ only near the leaf stay apart ("ProfilerStep >
// ... > all2all > nccl:all_to_all"). A path whose leaf alone does not fit
// is cut as MdCell cuts text.
std::string MdPathCell(std::string_view path, std::size_t width = 100);
// Text for one line of a code block or a list item: CR and LF as spaces.
std::string OneLine(std::string_view text);
// Nanoseconds as milliseconds: 4 decimals, and at least three significant
// digits below 0.1 ms (a 2.9 us kernel is 0.00290, not 0.0029 or 0.0000).
std::string MsText(double ns);
// A metric value for a table cell: {:.4g}, whole and large numbers in plain digits.
std::string MetricText(double v);
// A count, "n/a" when unknown.
std::string CountText(const std::optional<std::uint64_t>& n);
// The same, "n/a" when unknown.
std::string MsText(const std::optional<double>& ns);
// Nanoseconds to milliseconds for JSON; unknown stays unknown (null).
std::optional<double> OptionalMs(const std::optional<double>& ns);
std::string JoinPath(const std::vector<std::string>& path);
// A metric value in output units (times in ms).
double OutValue(const analysis::MetricAggregate& m, double v);
std::string OutUnit(const analysis::MetricAggregate& m);
std::string CsvField(std::string_view text);

// A kernel table: the kernels of `kernels` named in `order` (keys), with the
// metric columns `columns` (section, name), as the report set chose them
// (ChooseKernelTable, regions_report.h).
void KernelTableMd(std::string& out, const std::map<std::string, analysis::KernelAggregate>& kernels,
                   const std::vector<std::string>& order,
                   const std::vector<std::pair<std::string, std::string>>& columns);
void DataQualityMd(std::string& out, const model::Diagnostics& d);

}  // namespace llmpo::report
