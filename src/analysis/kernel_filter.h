// Which kernels a region reports: include and exclude patterns, globally and
// per region. A pattern is a glob (fnmatch: * ? [...]) matched against the
// whole kernel name, or "regex:EXPR" (RE2), found anywhere in the name.
// Exclude wins; no include pattern means every kernel. Per-region includes
// replace the global ones for that region; excludes add up.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace llmpo::analysis {

struct PatternSet {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

class KernelFilter {
 public:
  KernelFilter();  // selects everything
  ~KernelFilter();
  KernelFilter(KernelFilter&&) noexcept;
  KernelFilter& operator=(KernelFilter&&) noexcept;

  // Fails on a malformed regex, naming the pattern.
  static Result<KernelFilter> Create(PatternSet global, std::map<std::string, PatternSet> per_region);

  // `region` is the region's label ("A", "LLM@prefill"); "" for no region.
  bool Selects(const std::string& region, const std::string& kernel) const {
    return selects_all_ || SelectsByPatterns(region, kernel);
  }

  // Patterns that never matched a kernel they were tried on: "include 'x' (region A)".
  std::vector<std::string> UnusedPatterns() const;

  bool empty() const;

 private:
  bool SelectsByPatterns(const std::string& region, const std::string& kernel) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
  // No pattern at all: Selects is true without a lookup (it is asked once
  // per region of every launch's stack).
  bool selects_all_ = true;
};

}  // namespace llmpo::analysis
