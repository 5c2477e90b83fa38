#include "src/model/hta_kernel_class.h"

namespace llmpo::model {
namespace {

bool Has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// HTA's computation rule lists what a computation kernel's name must not
// match; `cuda.*LaunchKernel` is "cuda" followed anywhere later by it.
bool ExcludedFromComputation(std::string_view n) {
  static constexpr std::string_view kPrefixes[] = {"nccl",        "Stream Wait Event",
                                                   "runFunction", "hip",
                                                   "job_exe",     "packet",
                                                   "pe_exe",      "cpum_exe_subgraph",
                                                   "hccl",        "collective_subgraph_execution"};
  for (auto p : kPrefixes) {
    if (n.starts_with(p)) return true;
  }
  if (Has(n, "Memcpy") || Has(n, "Memset") || Has(n, "dma") || Has(n, "Sync")) return true;
  const auto cuda = n.find("cuda");
  return cuda != std::string_view::npos && n.find("LaunchKernel", cuda + 4) != std::string_view::npos;
}

}  // namespace

KernelClass ClassifyKernelName(std::string_view n) {
  if (n.starts_with("nccl") || n.starts_with("hip") || n.starts_with("hccl") || Has(n, "ncclKernel")) {
    return KernelClass::kCommunication;
  }
  if (n.starts_with("Memcpy") || n.starts_with("Memset") || n.starts_with("dma")) return KernelClass::kMemory;
  if (!ExcludedFromComputation(n)) return KernelClass::kComputation;
  return KernelClass::kOther;
}

std::string_view ToString(KernelClass c) {
  switch (c) {
    case KernelClass::kCommunication:
      return "communication";
    case KernelClass::kMemory:
      return "memory";
    case KernelClass::kComputation:
      return "computation";
    case KernelClass::kOther:
      return "other";
  }
  return "other";
}

}  // namespace llmpo::model
