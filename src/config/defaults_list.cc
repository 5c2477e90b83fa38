#include "src/config/defaults_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "src/config/scalar.h"
#include "src/core/spellcheck.h"

namespace llmpo::config {
namespace {

Error ListError(const std::string& source, std::size_t index, std::string_view what) {
  return MakeError(ExitStatus::kInput, fmt::format("{}: defaults list item {}: {}", source, index + 1, what));
}

void SplitGroupAndPackage(const std::string& key, DefaultsEntry& entry) {
  const auto at = key.find('@');
  entry.group = key.substr(0, at);
  if (at != std::string::npos) entry.package = key.substr(at + 1);
}

Result<DefaultsEntry> ParseEntry(const Node& item, const std::string& source, std::size_t index) {
  DefaultsEntry entry;
  if (item.is_string()) {
    if (item.get<std::string>() == "_self_") {
      entry.is_self = true;
      return entry;
    }
    return ListError(source, index,
                     fmt::format("'{}' is not supported: write 'group: option' or _self_", item.get<std::string>()));
  }
  if (!item.is_object() || item.size() != 1) {
    return ListError(source, index, "each item is 'group: option' or _self_");
  }
  const std::string key = item.begin().key();
  const Node& value = item.begin().value();
  if (key.starts_with("override ") || key.starts_with("optional ")) {
    return ListError(source, index, fmt::format("the '{}' keyword is not supported here", key.substr(0, 8)));
  }
  SplitGroupAndPackage(key, entry);
  if (value.is_string() && value.get<std::string>() == "???") {
    entry.mandatory = true;
  } else if (!value.is_null()) {
    if (!value.is_primitive()) return ListError(source, index, "the option must be a single name");
    entry.option = ScalarToText(value);
  }
  return entry;
}

bool Matches(const DefaultsEntry& entry, const Override& ov) {
  if (entry.is_self || entry.group != ov.key) return false;
  if (!ov.package) return true;
  return entry.package.value_or(entry.group) == *ov.package ||
         (!entry.package && *ov.package == EffectivePackage(entry, std::nullopt));
}

std::string OverrideLabel(const Override& ov) {
  return ov.package ? fmt::format("{}@{}", ov.key, *ov.package) : ov.key;
}

Status CheckOption(const Override& ov, const Repository& repo) {
  auto loaded = repo.Load(ov.key, ov.value_text);
  if (!loaded.ok()) return std::move(loaded).error().WithContext(fmt::format("override '{}'", ov.text));
  return OkStatus();
}

Error NotInDefaults(const Override& ov) {
  return MakeError(ExitStatus::kUsage,
                   fmt::format("override '{}': group '{}' is not in the defaults list", ov.text, OverrideLabel(ov)))
      .WithNote(fmt::format("to add it, prefix it with '+': +{}={}", OverrideLabel(ov), ov.value_text));
}

// A group not in the defaults list. When `value` names a folder of groups
// rather than an option ("model=tiny_llm": tiny_llm's configs are in
// model/tiny_llm/arch and model/tiny_llm/infer), adding it with '+' would fail
// too: the note shows the swap of the entry chosen now for one of those.
Error NotChosenHere(const std::vector<DefaultsEntry>& entries, const Override& ov, const Repository& repo) {
  const std::vector<std::string> options = repo.Options(ov.key);
  const std::string folder = ov.key + "/" + ov.value_text + "/";
  std::vector<std::string> subgroups;
  for (const auto& g : repo.Groups()) {
    if (g.starts_with(folder) && !repo.Options(g).empty()) subgroups.push_back(g);
  }
  if (std::find(options.begin(), options.end(), ov.value_text) != options.end() || subgroups.empty()) {
    return NotInDefaults(ov);
  }
  Error e =
      MakeError(ExitStatus::kUsage, fmt::format("override '{}': '{}' is not an option of group '{}' but a folder of "
                                                "groups: {}",
                                                ov.text, ov.value_text, ov.key, fmt::join(subgroups, ", ")));
  const std::string& target = subgroups.front();
  for (const auto& entry : entries) {
    if (entry.is_self || !entry.group.starts_with(ov.key + "/") || entry.group.starts_with(folder)) continue;
    const std::string tail = entry.group.substr(entry.group.rfind('/'));  // "/arch"
    if (!target.ends_with(tail)) continue;
    const std::string package = entry.package ? "@" + *entry.package : "";
    return std::move(e).WithNote(fmt::format("to use it in place of {}: '~{}' '+{}{}={}'", entry.group,
                                             entry.Label(), target, package, repo.Options(target).front()));
  }
  return std::move(e).WithNote(fmt::format("to add one: '+{}={}'", target, repo.Options(target).front()));
}

}  // namespace

std::string DefaultsEntry::Label() const { return package ? fmt::format("{}@{}", group, *package) : group; }

Result<std::vector<DefaultsEntry>> ParseDefaultsList(const Node& defaults, const std::string& source) {
  std::vector<DefaultsEntry> entries;
  if (!defaults.is_null() && !defaults.is_array())
    return MakeError(ExitStatus::kInput, fmt::format("{}: 'defaults' must be a list", source));
  for (std::size_t i = 0; defaults.is_array() && i < defaults.size(); ++i) {
    ASSIGN_OR_RETURN(DefaultsEntry entry, ParseEntry(defaults[i], source, i));
    entries.push_back(std::move(entry));
  }
  if (std::none_of(entries.begin(), entries.end(), [](const auto& e) { return e.is_self; })) {
    DefaultsEntry self;
    self.is_self = true;
    entries.push_back(std::move(self));
  }
  return entries;
}

Status ApplyGroupOverride(std::vector<DefaultsEntry>& entries, const Override& ov, const Repository& repo) {
  if (!repo.IsGroup(ov.key)) {
    Error e =
        MakeError(ExitStatus::kUsage, fmt::format("override '{}': there is no config group '{}'", ov.text, ov.key));
    const std::vector<std::string> groups = repo.Groups();
    if (auto near = ClosestMatch(ov.key, groups)) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
    return std::move(e).WithNote(fmt::format("groups: {}", fmt::join(groups, ", ")));
  }
  std::vector<DefaultsEntry*> matches;
  for (auto& entry : entries) {
    if (Matches(entry, ov)) matches.push_back(&entry);
  }
  if (matches.size() > 1) {
    return MakeError(ExitStatus::kUsage,
                     fmt::format("override '{}': group '{}' is in the defaults list more than once", ov.text, ov.key))
        .WithNote(fmt::format("name the one you mean with its package, e.g. {}", matches[0]->Label()));
  }
  DefaultsEntry* match = matches.empty() ? nullptr : matches[0];

  if (ov.action == OverrideAction::kDelete) {
    if (match == nullptr) return NotInDefaults(ov).WithNote("there is nothing to delete");
    if (ov.value && match->option != ov.value_text) {
      return MakeError(ExitStatus::kUsage, fmt::format("override '{}': group '{}' has option '{}', not '{}'", ov.text,
                                                       ov.key, match->option.value_or("null"), ov.value_text));
    }
    std::erase_if(entries, [&](const DefaultsEntry& e) { return &e == match; });
    return OkStatus();
  }
  if (ov.action == OverrideAction::kAdd && match != nullptr) {
    return MakeError(ExitStatus::kUsage,
                     fmt::format("override '{}': group '{}' is already in the defaults list", ov.text, match->Label()))
        .WithNote(fmt::format("to change its option, drop the '+': {}={}", OverrideLabel(ov), ov.value_text));
  }
  if (ov.action == OverrideAction::kChange && match == nullptr) return NotChosenHere(entries, ov, repo);

  RETURN_IF_ERROR(CheckOption(ov, repo));
  if (match != nullptr) {
    match->option = ov.value_text;
    match->mandatory = false;
    return OkStatus();
  }
  DefaultsEntry added;
  added.group = ov.key;
  added.package = ov.package;
  added.option = ov.value_text;
  entries.push_back(std::move(added));
  return OkStatus();
}

std::string EffectivePackage(const DefaultsEntry& entry, const std::optional<std::string>& header) {
  const std::string package = entry.package.value_or(header.value_or("_group_"));
  if (package == "_global_") return "";
  if (package == "_group_") {
    std::string dotted = entry.group;
    std::replace(dotted.begin(), dotted.end(), '/', '.');
    return dotted;
  }
  return package;
}

}  // namespace llmpo::config
