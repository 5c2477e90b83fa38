// Which NVTX names are numbered instances of one region ("decode step 12",
// "layer_7"): config `pipeline.regions.instance_suffix`, an RE2 pattern
// matched at the end of a range's name whose first group is the number
// (default `[ _#-]([0-9]+)`). The name with that group replaced by "N" is the
// region ("decode step N"). A region tree folds such names only when one
// parent holds the same folded name with two different numbers: a number
// seen once ("resnet_50" alone) may be part of the name, and stays.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "src/core/result.h"

namespace re2 {
class RE2;
}

namespace llmpo::analysis {

inline constexpr const char* kDefaultInstanceSuffix = "[ _#-]([0-9]+)";

class InstanceSuffix {
 public:
  InstanceSuffix();  // folds nothing
  ~InstanceSuffix();
  InstanceSuffix(const InstanceSuffix&);
  InstanceSuffix& operator=(const InstanceSuffix&);

  // An empty pattern folds nothing. Fails on a pattern RE2 refuses or one
  // without a capture group.
  static Result<InstanceSuffix> Create(const std::string& pattern);

  struct Split {
    std::string folded;   // "decode step N"
    std::int64_t number;  // 12
  };
  std::optional<Split> Fold(std::string_view name) const;
  bool enabled() const { return re_ != nullptr; }

 private:
  std::shared_ptr<const re2::RE2> re_;
  // The default pattern, matched without RE2 (a regex run per numbered
  // name was 2 % of an nsys import): one of " _#-", then the trailing digits.
  bool default_pattern_ = false;
};

}  // namespace llmpo::analysis
