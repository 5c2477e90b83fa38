#include "src/analysis/instance_suffix.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include "src/model/counter_suffix.h"

namespace llmpo::analysis {

InstanceSuffix::InstanceSuffix() = default;
InstanceSuffix::~InstanceSuffix() = default;
InstanceSuffix::InstanceSuffix(const InstanceSuffix&) = default;
InstanceSuffix& InstanceSuffix::operator=(const InstanceSuffix&) = default;

Result<InstanceSuffix> InstanceSuffix::Create(const std::string& pattern) {
  InstanceSuffix rule;
  if (pattern.empty()) return rule;
  auto re = std::make_shared<const re2::RE2>("(?:" + pattern + ")\\z", re2::RE2::Quiet);
  const auto fix = "fix pipeline.regions.instance_suffix (an RE2 pattern whose first group is the number, "
                   "e.g. '[ _#-]([0-9]+)'; '' folds nothing)";
  if (!re->ok()) {
    return MakeError(ExitStatus::kUsage, fmt::format("pipeline.regions.instance_suffix '{}' is not a valid RE2 "
                                                     "pattern: {}", pattern, re->error()))
        .WithNote(fix);
  }
  if (re->NumberOfCapturingGroups() < 1) {
    return MakeError(ExitStatus::kUsage,
                     fmt::format("pipeline.regions.instance_suffix '{}' has no capture group for the number", pattern))
        .WithNote(fix);
  }
  rule.re_ = std::move(re);
  rule.default_pattern_ = pattern == kDefaultInstanceSuffix;
  return rule;
}

std::optional<InstanceSuffix::Split> InstanceSuffix::Fold(std::string_view name) const {
  // Most names end in no digit: no regex for them.
  const auto trailing = re_ ? model::FindTrailingNumber(name) : std::nullopt;
  if (!trailing) return std::nullopt;
  if (default_pattern_) {
    // What RE2 finds for "(?:[ _#-]([0-9]+))\z": the separator must come right
    // before the trailing digits (it is no digit), so the group is all of them.
    if (trailing->pos == 0 || std::string_view(" _#-").find(name[trailing->pos - 1]) == std::string_view::npos) {
      return std::nullopt;
    }
    Split split;
    split.folded.reserve(trailing->pos + 1);
    split.folded.append(name.substr(0, trailing->pos)).append("N");
    split.number = trailing->value;
    return split;
  }
  re2::StringPiece groups[2];
  if (!re_->Match(re2::StringPiece(name.data(), name.size()), 0, name.size(), re2::RE2::UNANCHORED, groups, 2)) {
    return std::nullopt;
  }
  const std::string_view number(groups[1].data(), groups[1].size());
  const auto digits = model::FindTrailingNumber(number);
  if (number.empty() || !digits || digits->pos != 0) return std::nullopt;  // the group must be digits only
  const auto at = static_cast<std::size_t>(groups[1].data() - name.data());
  Split split;
  split.folded.reserve(name.size());
  split.folded.append(name.substr(0, at)).append("N").append(name.substr(at + number.size()));
  split.number = digits->value;
  return split;
}

}  // namespace llmpo::analysis
