// A report set built from files the way `import` builds it
// (src/pipeline/import_job.cc), for tests that need a real one.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "src/pipeline/collectors.h"
#include "src/report/report_set.h"

namespace llmpo::testing {

struct ImportedSet {
  std::unique_ptr<pipeline::Collectors> collectors;  // owns the regions the set points at
  report::ReportSet set;
};

// Each input imported in turn into one Collectors, then BuildReportSet with
// `options` (its categorizer set when it has none). `scratch`: where an
// importer may unpack.
ImportedSet ImportForTest(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& scratch,
                          report::ReportOptions options = {});

}  // namespace llmpo::testing
