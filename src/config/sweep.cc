#include "src/config/sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <re2/re2.h>

#include <cmath>

#include "src/config/override.h"
#include "src/config/scalar.h"
#include "src/core/spellcheck.h"

namespace llmpo::config {
namespace {

// A range of more values than this is a mistake (a step of 1 over 0..1e9).
constexpr std::size_t kMaxAxisValues = 100000;
constexpr std::size_t kMaxPoints = std::size_t{1} << 40;

const std::vector<std::string>& SweepFunctions() {
  static const std::vector<std::string> names = {"range", "choice", "glob"};
  return names;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Error SweepError(std::string_view text, std::string message) {
  return MakeError(ExitStatus::kUsage, fmt::format("bad sweep '{}': {}", text, std::move(message)));
}

const char* kFunctionsNote = "sweep forms: a,b,c  range(START,STOP[,STEP])  choice(A,B,...)  glob(PATTERN[,exclude=PATTERN])";

// "name(args)" as the whole value: the name and the text between the parentheses.
bool SplitCall(std::string_view value, std::string* name, std::string* args) {
  static const RE2 re("([A-Za-z_][A-Za-z0-9_]*)\\((.*)\\)");
  return RE2::FullMatch(value, re, name, args);
}

// The override's parts: key text (prefix included) and value text.
struct Parts {
  std::string key, value;
  bool has_value = false;
};
Parts SplitOverride(std::string_view text) {
  Parts p;
  const std::size_t eq = text.find('=');
  p.key = std::string(text.substr(0, eq));
  if (eq != std::string_view::npos) {
    p.value = std::string(Trim(text.substr(eq + 1)));
    p.has_value = true;
  }
  return p;
}

// Each value must parse on its own as an override value would.
Status CheckValues(std::string_view text, const std::vector<std::string>& values) {
  for (const auto& v : values) {
    if (v.empty()) return SweepError(text, "an empty value between commas: remove the extra ','");
    if (auto parsed = ParseOverrideValue(v); !parsed.ok()) {
      return SweepError(text, fmt::format("value '{}': {}", v, parsed.error().message));
    }
  }
  return OkStatus();
}

std::string NumberText(double v, bool integers) {
  if (integers) return fmt::format("{}", static_cast<long long>(std::llround(v)));
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // stays a float
  return s;
}

Result<std::vector<std::string>> RangeValues(std::string_view text, const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 3 || (args.size() == 1 && args[0].empty())) {
    return SweepError(text, "range takes START,STOP or START,STOP,STEP (or STOP alone, from 0)");
  }
  std::vector<double> nums;
  bool integers = true;
  for (const auto& a : args) {
    const Node n = TypePlainScalar(a);
    if (!n.is_number() || !std::isfinite(n.get<double>())) {
      return SweepError(text, fmt::format("range arguments are numbers; '{}' is not", a));
    }
    integers = integers && n.is_number_integer();
    nums.push_back(n.get<double>());
  }
  const double start = nums.size() == 1 ? 0 : nums[0];
  const double stop = nums.size() == 1 ? nums[0] : nums[1];
  const double step = nums.size() == 3 ? nums[2] : 1;
  if (step == 0) return SweepError(text, "range step is 0: it would never reach STOP");
  const double count_d = std::ceil((stop - start) / step);
  if (!(count_d >= 1)) {
    return SweepError(text, fmt::format("the range is empty: STOP ({}) is excluded and {} with step {}",
                                        NumberText(stop, integers),
                                        step > 0 ? "START is not below it" : "START is not above it",
                                        NumberText(step, integers)))
        .WithNote("range(1,4) gives 1,2,3; range(4,0,-1) gives 4,3,2,1");
  }
  if (count_d > static_cast<double>(kMaxAxisValues)) {
    return SweepError(text, fmt::format("the range has {:.0f} values, more than {}", count_d, kMaxAxisValues));
  }
  std::vector<std::string> values;
  for (std::size_t i = 0; i < static_cast<std::size_t>(count_d); ++i) {
    values.push_back(NumberText(start + static_cast<double>(i) * step, integers));
  }
  return values;
}

// Patterns of a glob argument: one, or a [list].
std::vector<std::string> Patterns(std::string_view arg) {
  arg = Trim(arg);
  if (arg.size() >= 2 && arg.front() == '[' && arg.back() == ']') return SplitTopLevel(arg.substr(1, arg.size() - 2));
  return {std::string(arg)};
}

bool MatchesAny(const std::string& name, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) {
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

Result<std::vector<std::string>> GlobValues(std::string_view text, const std::string& key,
                                            const std::vector<std::string>& args, const GroupOptionsFn& groups) {
  std::string group = key;
  while (!group.empty() && (group.front() == '+' || group.front() == '~')) group.erase(0, 1);
  group = group.substr(0, group.find('@'));
  const auto options = groups ? groups(group) : std::nullopt;
  if (!options) {
    return SweepError(text, fmt::format("glob() picks options of a config group, and '{}' is not one", group))
        .WithNote("for a plain key, list the values: key=a,b or key=choice(a,b)");
  }
  std::vector<std::string> include, exclude;
  for (const auto& a : args) {
    if (a.starts_with("exclude=")) {
      for (auto& p : Patterns(std::string_view(a).substr(8))) exclude.push_back(p);
    } else {
      for (auto& p : Patterns(a)) include.push_back(p);
    }
  }
  if (include.empty()) return SweepError(text, "glob needs a pattern, e.g. glob(*) or glob(ncu.*,exclude=ncu.high)");
  std::vector<std::string> values;
  for (const auto& o : *options) {
    if (MatchesAny(o, include) && !MatchesAny(o, exclude)) values.push_back(o);
  }
  if (values.empty()) {
    return SweepError(text, fmt::format("glob matched no option of '{}'", group))
        .WithNote(options->empty() ? std::string("it has no options of its own (only subgroups)")
                                   : fmt::format("its options: {}", fmt::join(*options, ", ")));
  }
  return values;
}

Result<std::vector<std::string>> CallValues(std::string_view text, const std::string& key, const std::string& name,
                                            const std::string& args_text, const GroupOptionsFn& groups) {
  const std::vector<std::string> args = SplitTopLevel(args_text);
  if (name == "range") return RangeValues(text, args);
  if (name == "glob") return GlobValues(text, key, args, groups);
  if (name == "choice") {
    if (args.size() == 1 && args[0].empty()) return SweepError(text, "choice() needs at least one value");
    RETURN_IF_ERROR(CheckValues(text, args));
    return args;
  }
  Error e = SweepError(text, fmt::format("unknown sweep function '{}'", name));
  if (auto near = ClosestMatch(name, SweepFunctions())) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
  std::move(e).WithNote(kFunctionsNote);
  std::move(e).WithNote("a value that only looks like a call is a string when quoted: key='f(x)'");
  return e;
}

// The axis an override sweeps, or nullopt for a plain override.
Result<std::optional<SweepAxis>> AxisOf(const std::string& text, const GroupOptionsFn& groups) {
  const Parts parts = SplitOverride(text);
  if (!parts.has_value) return std::optional<SweepAxis>();
  std::string name, args;
  std::vector<std::string> values;
  if (SplitCall(parts.value, &name, &args)) {
    ASSIGN_OR_RETURN(values, CallValues(text, parts.key, name, args, groups));
  } else {
    values = SplitTopLevel(parts.value);
    if (values.size() < 2) return std::optional<SweepAxis>();
    RETURN_IF_ERROR(CheckValues(text, values));
  }
  if (parts.key.starts_with('~')) return SweepError(text, "a deletion (~key) cannot be swept");
  return std::optional<SweepAxis>(SweepAxis{parts.key, text, std::move(values)});
}

}  // namespace

std::vector<std::string> SplitTopLevel(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0, depth = 0, i = 0;
  char quote = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\' && i + 1 < text.size()) {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
      --depth;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      ++depth;
      ++i;
    } else if (c == ',' && depth == 0) {
      parts.emplace_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.emplace_back(Trim(text.substr(start)));
  return parts;
}

bool LooksLikeSweep(std::string_view override_text) {
  const Parts parts = SplitOverride(override_text);
  if (!parts.has_value) return false;
  std::string name, args;
  if (SplitCall(parts.value, &name, &args)) {
    for (const auto& f : SweepFunctions()) {
      if (name == f) return true;
    }
    return false;
  }
  return SplitTopLevel(parts.value).size() > 1;
}

Result<SweepPlan> PlanSweep(const std::vector<std::string>& overrides, const GroupOptionsFn& group_options) {
  SweepPlan plan;
  for (const auto& text : overrides) {
    ASSIGN_OR_RETURN(std::optional<SweepAxis> axis, AxisOf(text, group_options));
    if (!axis) {
      plan.fixed.push_back(text);
      continue;
    }
    for (const auto& other : plan.axes) {
      if (other.key == axis->key) {
        return SweepError(text, fmt::format("'{}' is swept twice", axis->key))
            .WithNote("give all its values in one override: key=a,b,c");
      }
    }
    plan.axes.push_back(std::move(*axis));
  }
  return plan;
}

std::size_t SweepPlan::PointCount() const {
  std::size_t n = 1;
  for (const auto& a : axes) {
    n = a.values.size() > kMaxPoints / n ? kMaxPoints : n * a.values.size();  // saturates
  }
  return n;
}

std::vector<std::string> SweepPlan::PointValues(std::size_t index) const {
  std::vector<std::string> values(axes.size());
  for (std::size_t k = axes.size(); k-- > 0;) {  // the last axis varies fastest
    values[k] = axes[k].values[index % axes[k].values.size()];
    index /= axes[k].values.size();
  }
  return values;
}

std::vector<std::string> SweepPlan::PointOverrides(std::size_t index) const {
  std::vector<std::string> out = fixed;
  const std::vector<std::string> values = PointValues(index);
  for (std::size_t k = 0; k < axes.size(); ++k) out.push_back(axes[k].key + "=" + values[k]);
  return out;
}

}  // namespace llmpo::config
