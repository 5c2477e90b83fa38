// report_set.json: the report set (report_set.h) serialised whole, so that a
// later command (compare, sweep, a merge of partial results) starts from
// what an import decided instead of importing again. Written by every
// import, profile and trace run (src/pipeline/outputs.cc); read back into a
// set that renders every report byte for byte as the run wrote it, except
// a traced run's trace/ files, which are not in it (docs/report-set.md).
//
// The model, not a report: every time in ns as the structs hold them (a
// member whose name ends in _ms or _pct holds that unit), unknown (nullopt)
// is null, never 0.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "src/core/result.h"
#include "src/report/report_set.h"

namespace llmpo::report {

// Major.minor.patch: a reader reads every file of its own major version
// (members it does not know are ignored) and refuses any other.
inline constexpr const char* kReportSetSchemaVersion = "1.8.0";
inline constexpr int kReportSetSchemaMajor = 1;

std::string ReportSetJson(const ReportSet& set);
// The same bytes into `out`, passed on a piece at a time (the text of a
// report of many ranks is never held whole).
void WriteReportSetJson(const ReportSet& set, std::ostream& out);

// The set `text` holds; `origin` (the file) names it in errors. Invalid
// JSON, a missing or unreadable schema_version, one of another major
// version, a missing or mistyped member: an input error (exit 3) saying
// which member and what is wrong. The set owns its regions and has no
// trace outputs.
Result<ReportSet> ReadReportSetJson(std::string_view text, const std::string& origin);

}  // namespace llmpo::report
