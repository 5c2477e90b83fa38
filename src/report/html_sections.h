// report.html's sections for what the Markdown reports had alone: the
// per-kernel ncu table (kernels.md's bound class, SOL %, findings) and the
// GPU breakdown (gpu_breakdown.md). They only render the report models.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/report/gpu_breakdown_report.h"
#include "src/report/kernels_report.h"
#include "src/report/page_model.h"

namespace llmpo::report {

// The ncu table's columns and rows (the page's table script sorts and
// filters them): the kernels of PageModel::kernel_rows with ncu's metrics or
// findings; null when none has any.
nlohmann::ordered_json NcuKernelTableData(const KernelsReport& kernels, const PageModel& page);

// The ncu table's section (an empty table the script fills); nothing
// without rows.
std::string NcuKernelSection(bool has_rows);

// The GPU breakdown per rank and device (temporal and kernel-type
// breakdowns, launch delays, rank comparison, CPU ops with their GPU time);
// nothing when `report` is null or has no device.
std::string GpuBreakdownSection(const GpuBreakdownReport* report);

}  // namespace llmpo::report
