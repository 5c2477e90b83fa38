// The kernel report: one model, written as Markdown (kernels.md, for people)
// and JSON (kernels.json, for programs). Writers read only this model.
// All times in the output are milliseconds, all byte counts bytes.
#pragma once

#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/model/diagnostics.h"

namespace llmpo::report {

inline constexpr const char* kKernelsSchemaVersion = "1.0.0";

struct SourceInfo {
  std::string path;
  std::string format;  // ingest::ToString(InputFormat)
  std::string status;  // "ok" or "failed: <reason>"
};

struct KernelsReport {
  std::vector<SourceInfo> sources;
  std::vector<analysis::KernelAggregate> kernels;  // sorted per source, largest total first
  model::Diagnostics diagnostics;
};

std::string KernelsMarkdown(const KernelsReport& report, std::size_t top_k);
std::string KernelsJson(const KernelsReport& report);

}  // namespace llmpo::report
