// Kernel categories for LLM inference (GEMM, attention, MoE, ...): an
// ordered table of regular expressions (RE2, case-sensitive, matched
// anywhere in the demangled name), first match wins; no match is "other".
// Users put their own rules before the built-in table through the config
// (analysis.kernel_categories; docs/analysis.md "Kernel categories").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/model/records.h"

namespace re2 {
class RE2;
}

namespace llmpo::analysis {

inline constexpr std::string_view kOtherCategory = "other";
inline constexpr std::string_view kCopyCategory = "memcpy/memset";

struct CategoryRule {
  std::string category;
  std::string pattern;
};

// The built-in table, in matching order.
const std::vector<CategoryRule>& DefaultCategoryRules();

class KernelCategorizer {
 public:
  // `first` rules are tried before the built-in ones; a bad expression or
  // an empty category is a usage error naming the rule.
  static Result<KernelCategorizer> Create(const std::vector<CategoryRule>& first = {});

  std::string_view Categorize(std::string_view kernel_name) const;
  // Copies and memsets are their own category whatever their name.
  std::string_view Categorize(const model::LaunchRecord& launch) const;

 private:
  struct Compiled {
    std::string category;
    std::shared_ptr<re2::RE2> regex;
  };
  std::vector<Compiled> rules_;
};

}  // namespace llmpo::analysis
