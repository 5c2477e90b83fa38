#include "src/analysis/kernel_filter.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <re2/re2.h>

namespace llmpo::analysis {
namespace {

class Pattern {
 public:
  static Result<Pattern> Create(const std::string& text) {
    Pattern p;
    p.text_ = text;
    if (text.starts_with("regex:")) {
      p.regex_ = std::make_shared<RE2>(text.substr(6), RE2::Quiet);
      if (!p.regex_->ok()) {
        return MakeError(ExitStatus::kUsage,
                         fmt::format("kernel pattern '{}': bad regular expression: {}", text, p.regex_->error()));
      }
    }
    return p;
  }
  bool Matches(const std::string& kernel) const {
    const bool hit = regex_ ? RE2::PartialMatch(kernel, *regex_) : fnmatch(text_.c_str(), kernel.c_str(), 0) == 0;
    if (hit) ++hits_;
    return hit;
  }
  const std::string& text() const { return text_; }
  std::uint64_t hits() const { return hits_; }

 private:
  std::string text_;
  std::shared_ptr<RE2> regex_;
  mutable std::uint64_t hits_ = 0;
};

struct CompiledSet {
  std::vector<Pattern> include;
  std::vector<Pattern> exclude;
};

Result<CompiledSet> Compile(const PatternSet& set) {
  CompiledSet out;
  for (const auto& text : set.include) {
    ASSIGN_OR_RETURN(Pattern p, Pattern::Create(text));
    out.include.push_back(std::move(p));
  }
  for (const auto& text : set.exclude) {
    ASSIGN_OR_RETURN(Pattern p, Pattern::Create(text));
    out.exclude.push_back(std::move(p));
  }
  return out;
}

bool AnyMatch(const std::vector<Pattern>& patterns, const std::string& kernel) {
  bool any = false;
  for (const auto& p : patterns) any = p.Matches(kernel) || any;  // evaluate all, so hit counts are honest
  return any;
}

}  // namespace

struct KernelFilter::Impl {
  CompiledSet global;
  std::map<std::string, CompiledSet> per_region;
};

KernelFilter::KernelFilter() : impl_(std::make_unique<Impl>()) {}
KernelFilter::~KernelFilter() = default;
KernelFilter::KernelFilter(KernelFilter&&) noexcept = default;
KernelFilter& KernelFilter::operator=(KernelFilter&&) noexcept = default;

Result<KernelFilter> KernelFilter::Create(PatternSet global, std::map<std::string, PatternSet> per_region) {
  KernelFilter filter;
  ASSIGN_OR_RETURN(filter.impl_->global, Compile(global));
  for (const auto& [region, set] : per_region) {
    auto compiled = Compile(set);
    if (!compiled.ok()) return std::move(compiled).error().WithContext(fmt::format("region '{}'", region));
    filter.impl_->per_region.emplace(region, std::move(compiled).value());
  }
  filter.selects_all_ = filter.empty();
  return filter;
}

bool KernelFilter::SelectsByPatterns(const std::string& region, const std::string& kernel) const {
  const CompiledSet* own = nullptr;
  if (auto it = impl_->per_region.find(region); it != impl_->per_region.end()) own = &it->second;
  if (AnyMatch(impl_->global.exclude, kernel) | (own && AnyMatch(own->exclude, kernel))) return false;
  const auto& include = (own && !own->include.empty()) ? own->include : impl_->global.include;
  return include.empty() || AnyMatch(include, kernel);
}

std::vector<std::string> KernelFilter::UnusedPatterns() const {
  std::vector<std::string> out;
  auto collect = [&](const CompiledSet& set, const std::string& where) {
    for (const auto& p : set.include) {
      if (p.hits() == 0) out.push_back(fmt::format("include '{}'{}", p.text(), where));
    }
    for (const auto& p : set.exclude) {
      if (p.hits() == 0) out.push_back(fmt::format("exclude '{}'{}", p.text(), where));
    }
  };
  collect(impl_->global, "");
  for (const auto& [region, set] : impl_->per_region) collect(set, fmt::format(" (region {})", region));
  return out;
}

bool KernelFilter::empty() const {
  return impl_->global.include.empty() && impl_->global.exclude.empty() && impl_->per_region.empty();
}

}  // namespace llmpo::analysis
