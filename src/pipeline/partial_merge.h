// Partial results (report/partial_set.h) merged: read from their files,
// checked to belong together, concatenated in the order given, and turned
// back into what an import collects so that the same report set is built.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/kernel_filter.h"
#include "src/analysis/region_combine.h"
#include "src/core/result.h"
#include "src/report/partial_set.h"
#include "src/report/report_set.h"

namespace llmpo::pipeline {

struct PartialFile {
  std::string origin;  // the file (or input) it came from, for messages
  report::PartialSet set;
};

Result<PartialFile> ReadPartialFile(const std::filesystem::path& file);

// One partial: `parts` concatenated in order. Refused (exit 3, both files
// named): partials of different jobs, an input held by two of them, a rank
// claimed by two inputs, ranks that disagree on the world size.
Result<report::PartialSet> MergePartials(std::vector<PartialFile> parts);

// MergePartials one part at a time: each part is checked against those
// before it and appended, so a caller can drop it at once (memory then
// grows with what the merged partial keeps, not with the parts read).
// The first refusal is returned by Add and again by Finish.
class PartialMerger {
 public:
  PartialMerger();
  ~PartialMerger();
  PartialMerger(const PartialMerger&) = delete;
  PartialMerger& operator=(const PartialMerger&) = delete;
  Status Add(PartialFile part);
  Result<report::PartialSet> Finish();  // once; in one import's order

  struct Checks;  // what the parts before hold (partial_merge.cc)

 private:
  std::unique_ptr<Checks> checks_;
  std::optional<report::PartialSet> out_;
  std::optional<Error> refused_;
};

// The ranks below the world size that no input holds, as a rank_missing
// diagnostic in `set.diagnostics`; nothing when the world size is unknown.
void NoteMissingRanks(report::PartialSet& set);
void NoteMissingRanks(const model::GpuBreakdown& breakdown, model::Diagnostics& diagnostics);

// A partial turned back into what an import collects, with the region
// builders restored and combined; keep it while the Collected is used.
class MergedCollection {
 public:
  explicit MergedCollection(report::PartialSet set);
  ~MergedCollection();
  MergedCollection(const MergedCollection&) = delete;
  MergedCollection& operator=(const MergedCollection&) = delete;
  report::Collected Take();  // once

 private:
  report::PartialSet set_;
  analysis::KernelFilter filter_;
  model::Diagnostics builder_diagnostics_;  // restored builders report nothing
  std::vector<std::unique_ptr<analysis::RegionBuilder>> builders_;
  analysis::CombinedRegions regions_;
};

}  // namespace llmpo::pipeline
