// kernels.md's "ncu findings (OPT)" table: at most kMaxOptRowsPerKernel
// findings per kernel (the largest estimated speedups; kernels.json keeps
// them all), and each rule text printed once below the table with the
// kernels that gave it, rather than repeated on every row.
#pragma once

#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"

namespace llmpo::report {

inline constexpr std::size_t kMaxOptRowsPerKernel = 3;

void FindingsTable(std::string& out, const std::vector<const analysis::KernelAggregate*>& kernels, std::size_t top_k);

}  // namespace llmpo::report
