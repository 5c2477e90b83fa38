// HTA's kernel types (hta/common/types.py): the class the GPU breakdown
// (gpu_breakdown.md) gives a GPU op by its name. Here in model so that the
// Kineto importer and the reports use the one rule.
#pragma once

#include <string_view>

namespace llmpo::model {

enum class KernelClass { kCommunication, kMemory, kComputation, kOther };
// Tested in this order on the whole name (docs/import.md, "GPU breakdown").
KernelClass ClassifyKernelName(std::string_view name);
std::string_view ToString(KernelClass c);

}  // namespace llmpo::model
