#include "src/config/composer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>

#include "src/config/defaults_list.h"
#include "src/config/interpolation.h"
#include "src/config/node_path.h"
#include "src/config/override.h"
#include "src/core/spellcheck.h"

namespace llmpo::config {
namespace {

bool IsGroupOverride(const Override& ov, const Repository& repo) {
  return ov.package.has_value() || ov.key.find('/') != std::string::npos || repo.IsGroup(ov.key);
}

const char* KindName(const Node& n) {
  if (n.is_object()) return "a mapping";
  if (n.is_array()) return "a list";
  if (n.is_boolean()) return "a bool";
  if (n.is_number_integer()) return "an int";
  if (n.is_number_float()) return "a float";
  if (n.is_null()) return "null";
  return "a string";
}

// The new value must have the kind of the old one, so that a typo such as
// enable=ture fails here instead of meaning "true" somewhere else. Strings,
// nulls and interpolations accept any scalar; ints widen to floats. Strings
// and lists stand in for each other, because "one or many" keys (NVTX
// includes, kernel patterns) take either 'A/' or [A/,B/].
bool KindsCompatible(const Node& current, const Node& value) {
  if (current.is_null() || value.is_null()) return true;
  if (current.is_string()) {
    return value.is_primitive() || value.is_array() ||
           current.get_ref<const std::string&>().find("${") != std::string::npos;
  }
  if (current.is_boolean()) return value.is_boolean();
  if (current.is_number_integer()) return value.is_number_integer();
  if (current.is_number_float()) return value.is_number();
  if (current.is_array()) return value.is_array() || value.is_string();
  if (current.is_object()) return value.is_object();
  return false;
}

// A value for a message: scalars as written, containers by their size.
std::string Describe(const Node& n) {
  if (n.is_object()) return fmt::format("a mapping of {} keys", n.size());
  if (n.is_array()) return fmt::format("a list of {} items", n.size());
  return fmt::format("{} ({})", KindName(n), n.dump());
}

Error UnknownKey(const Override& ov, const Node& config) {
  Error e = MakeError(ExitStatus::kUsage, fmt::format("override '{}': key '{}' is not in the config", ov.text, ov.key));
  if (auto near = ClosestMatch(ov.key, AllKeyPaths(config))) {
    std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
  }
  if (ov.action == OverrideAction::kDelete) return e;
  return std::move(e).WithNote(fmt::format("to add a new key, prefix it with '+': +{}", ov.text));
}

Status ApplyValueOverride(Node& config, const Override& ov) {
  const KeyPath path = SplitKey(ov.key);
  Node* current = FindPath(config, path);
  switch (ov.action) {
    case OverrideAction::kDelete:
      if (current == nullptr) return UnknownKey(ov, config);
      if (ov.value && *current != *ov.value) {
        return MakeError(ExitStatus::kUsage, fmt::format("override '{}': '{}' is {}, not {}", ov.text, ov.key,
                                                         current->dump(), ov.value->dump()));
      }
      ErasePath(config, path);
      return OkStatus();
    case OverrideAction::kAdd:
      if (current != nullptr) {
        return MakeError(ExitStatus::kUsage, fmt::format("override '{}': key '{}' already exists", ov.text, ov.key))
            .WithNote(fmt::format("to change it, drop the '+': {}", ov.text.substr(1)));
      }
      break;
    case OverrideAction::kChange:
      if (current == nullptr) return UnknownKey(ov, config);
      if (!KindsCompatible(*current, *ov.value)) {
        return MakeError(ExitStatus::kUsage,
                         fmt::format("override '{}': type mismatch: '{}' is {}, the new value is {}", ov.text, ov.key,
                                     Describe(*current), Describe(*ov.value)))
            .WithNote(fmt::format("to replace it with a value of another type, write ++{}", ov.text));
      }
      break;
    case OverrideAction::kForceAdd:
      break;
  }
  auto status = SetPath(config, path, *ov.value);
  if (!status.ok()) return std::move(status).error().WithContext(fmt::format("override '{}'", ov.text));
  return OkStatus();
}

Status MergeEntry(Node& config, const DefaultsEntry& entry, const Repository& repo, std::vector<std::string>& choices) {
  if (entry.mandatory) {
    return MakeError(ExitStatus::kUsage, fmt::format("group '{}' needs an option", entry.Label()))
        .WithNote(fmt::format("choose one with {}=OPTION; available: {}", entry.Label(),
                              fmt::join(repo.Options(entry.group), ", ")));
  }
  if (!entry.option) return OkStatus();
  auto loaded = repo.Load(entry.group, *entry.option);
  if (!loaded.ok()) {
    return std::move(loaded).error().WithContext(fmt::format("defaults list entry '{}'", entry.Label()));
  }
  if (loaded->body.contains("defaults")) {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: a defaults list inside a group option is not supported", loaded->file.string()))
        .WithNote("list the groups in the primary config's defaults list instead");
  }
  const std::string package = EffectivePackage(entry, loaded->package);
  Node wrapped;
  RETURN_IF_ERROR(SetPath(wrapped, SplitKey(package), std::move(loaded->body)));
  MergeInto(config, wrapped);
  choices.push_back(fmt::format("{}: {}", entry.Label(), *entry.option));
  return OkStatus();
}

struct SortedOverrides {
  std::vector<Override> groups;
  std::vector<Override> values;
};

Result<SortedOverrides> ParseAll(const std::vector<std::string>& texts, const Repository& repo) {
  SortedOverrides sorted;
  for (const auto& text : texts) {
    ASSIGN_OR_RETURN(Override ov, ParseOverride(text));
    if (IsGroupOverride(ov, repo)) {
      sorted.groups.push_back(std::move(ov));
    } else {
      sorted.values.push_back(std::move(ov));
    }
  }
  return sorted;
}

Result<LoadedConfig> LoadPrimary(const ComposeRequest& request, const Repository& repo) {
  auto primary = repo.Load("", request.config_name);
  if (!primary.ok() && primary.error().kind == ExitStatus::kUsage) {  // not found, as opposed to malformed
    return std::move(primary).error().WithNote(
        "choose the primary config with --config-name, and its folder with --config-dir");
  }
  return primary;
}

}  // namespace

Result<Composition> Compose(const ComposeRequest& request) {
  const Repository repo(request.search_path);
  ASSIGN_OR_RETURN(SortedOverrides overrides, ParseAll(request.overrides, repo));
  ASSIGN_OR_RETURN(LoadedConfig primary, LoadPrimary(request, repo));

  const Node defaults = primary.body.contains("defaults") ? primary.body["defaults"] : Node();
  primary.body.erase("defaults");
  ASSIGN_OR_RETURN(std::vector<DefaultsEntry> entries, ParseDefaultsList(defaults, primary.file.string()));
  for (const auto& ov : overrides.groups) RETURN_IF_ERROR(ApplyGroupOverride(entries, ov, repo));

  Composition result;
  result.config = Node::object();
  for (const auto& entry : entries) {
    if (entry.is_self) {
      MergeInto(result.config, primary.body);
    } else {
      RETURN_IF_ERROR(MergeEntry(result.config, entry, repo, result.choices));
    }
  }
  for (const auto& ov : overrides.values) RETURN_IF_ERROR(ApplyValueOverride(result.config, ov));
  result.unresolved = result.config;
  RETURN_IF_ERROR(ResolveInterpolations(result.config, ResolveContext{request.now, request.cwd}));
  return result;
}

std::time_t ComposeTime() {
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    char* end = nullptr;
    const long long value = std::strtoll(epoch, &end, 10);
    if (end != epoch && *end == '\0') return static_cast<std::time_t>(value);
  }
  return std::time(nullptr);
}

}  // namespace llmpo::config
