// The kernel report: one model, written as Markdown (kernels.md, for people)
// and JSON (kernels.json, for programs). Writers read only this model.
// All times in the output are milliseconds, all byte counts bytes.
#pragma once

#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/model/diagnostics.h"
#include "src/model/source.h"

namespace llmpo::report {

inline constexpr const char* kKernelsSchemaVersion = "1.0.0";

struct SourceInfo {
  std::string path;
  std::string format;  // the importer's name (ingest::Importers)
  std::string status;  // "ok" or "failed: <reason>"
  model::SourceFamily family = model::SourceFamily::kNcu;
};

struct KernelsReport {
  std::vector<SourceInfo> sources;
  std::vector<analysis::KernelAggregate> kernels;  // sorted per source, largest total first
  analysis::RuntimeSummaries runtime;              // nsys' API, memory-operation and launch-overhead summaries
  model::Diagnostics diagnostics;
};

std::string KernelsMarkdown(const KernelsReport& report, std::size_t top_k);
std::string KernelsJson(const KernelsReport& report);

}  // namespace llmpo::report
