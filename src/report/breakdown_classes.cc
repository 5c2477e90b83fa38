// Where kernels.md's category of a kernel and the GPU breakdown's class of
// it differ. The breakdown keeps HTA's name rule (its numbers are checked
// against HTA's); the reader is told which kernels it classes differently.
#include <set>

#include "src/analysis/kernel_category.h"
#include "src/model/hta_kernel_class.h"
#include "src/report/gpu_breakdown_report.h"
#include "src/report/kernels_report.h"

namespace llmpo::report {
namespace {

// The breakdown class a kernels.md category stands for.
model::KernelClass ClassOfCategory(const std::string& category) {
  if (category == "communication") return model::KernelClass::kCommunication;
  if (category == analysis::kCopyCategory) return model::KernelClass::kMemory;
  return model::KernelClass::kComputation;
}

std::string Why(model::KernelClass hta, model::KernelClass expected) {
  using model::KernelClass;
  if (hta == KernelClass::kCommunication) {
    return "HTA counts every name starting with nccl, hip or hccl, or containing ncclKernel, as communication";
  }
  if (expected == KernelClass::kCommunication) {
    return "HTA counts a kernel as communication only when its name starts with nccl, hip or hccl or contains "
           "ncclKernel";
  }
  if (hta == KernelClass::kMemory) return "HTA counts names starting with Memcpy, Memset or dma as memory";
  if (expected == KernelClass::kMemory) {
    return "HTA counts as memory only names starting with Memcpy, Memset or dma";
  }
  return "HTA leaves names with Sync, Memcpy, Memset, dma (and its other exclusions) out of computation";
}

}  // namespace

void FindClassDifferences(GpuBreakdownReport& report, const KernelsReport& kernels) {
  std::set<std::string> kineto;
  for (const auto& s : kernels.sources) {
    if (s.format == "kineto-trace") kineto.insert(s.path);
  }
  std::set<std::string> seen;
  for (const KernelRow& row : kernels.kernels) {
    if (!row.insight || !kineto.contains(row.source) || !seen.insert(row.name).second) continue;
    const model::KernelClass hta = model::ClassifyKernelName(row.name);
    const model::KernelClass expected = ClassOfCategory(row.insight->category);
    if (hta == expected) continue;
    ++report.class_differences_total;
    if (report.class_differences.size() == kMaxClassDifferences) continue;
    report.class_differences.push_back(
        {row.name, row.insight->category, std::string(model::ToString(hta)), Why(hta, expected)});
  }
}

}  // namespace llmpo::report
