#include "src/cli/parse_args.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "src/cli/diagnostics.h"
#include "src/config/node_path.h"
#include "src/config/repository.h"
#include "src/config/sweep.h"
#include "src/config/yaml_io.h"
#include "src/core/spellcheck.h"
#include "src/core/version.h"

namespace llmpo::cli {
namespace fs = std::filesystem;
namespace {

// Every spelling of the app's options: "--config-dir", "-p", ...
std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

const CLI::Option* FindOption(const CLI::App& app, const std::string& token) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->check_name(token)) return opt;
  }
  return nullptr;
}

// An option-looking argument the app does not have, before CLI11 folds it
// into a generic "arguments were not expected" error.
std::optional<Error> UnknownOption(const CLI::App& app, const std::vector<std::string>& args) {
  bool value_next = false;
  for (const std::string& arg : args) {
    if (value_next) {
      value_next = false;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.') continue;
    const std::string name = arg.substr(0, arg.find('='));
    const CLI::Option* opt = FindOption(app, name);
    if (opt != nullptr) {
      value_next = opt->get_type_size() != 0 && name == arg;
      continue;
    }
    if (arg[1] != '-' && arg.size() > 2 && FindOption(app, arg.substr(0, 2)) != nullptr) continue;  // -pVALUE
    Error e = MakeError(ExitStatus::kUsage, fmt::format("{}: unknown option '{}'", app.get_name(), name));
    if (auto near = ClosestMatch(name, OptionNames(app)))
      std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
    std::move(e).WithNote(fmt::format("run '{} --help' for its options", app.get_name()));
    return e;
  }
  return std::nullopt;
}

Error MultirunNotSupported() {
  return MakeError(ExitStatus::kUsage, "-m/--multirun: `config` prints one configuration, not a sweep")
      .WithNote("to see every point of a sweep: profile -m OVERRIDES --cfg job (or trace -m), or --dry-run")
      .WithNote("a list value needs brackets, e.g. 'pipeline.ncu.ncu_cli.sections=[SpeedOfLight,Occupancy]'");
}

config::Repository BuiltinRepository() { return config::Repository({config::BuiltinConfigDir()}); }

// Groups that hold options (a folder of only folders is not offered).
std::vector<std::pair<std::string, std::vector<std::string>>> GroupsWithOptions(const config::Repository& repo) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& group : repo.Groups()) {
    auto options = repo.Options(group);
    if (!options.empty()) groups.emplace_back(group, std::move(options));
  }
  return groups;
}

}  // namespace

void AddConfigOptions(CLI::App& app, ConfigArgs& args) {
  app.add_option("--config-dir", args.config_dir, "a folder of your own configs, searched before the built-in conf/");
  app.add_option("--config-name", args.config_name, "the primary config (default: config)");
  app.add_flag("--multirun,-m", args.multirun,
               "Hydra's sweep mode (profile, trace): key=a,b, range(), choice(), glob(); one run per point");
  app.add_option("--cfg", args.cfg, "print the composed config (job, all) or its hydra part (hydra) and stop")
      ->check(CLI::IsMember({"job", "hydra", "all"}));
  app.add_flag("--info", args.info, "print the config search path, the config groups and the defaults, and stop");
  app.add_option("overrides", args.overrides,
                 "Hydra-style overrides: key=value, +key=value, ++key=value, ~key, group@pkg=option");
  app.footer([] { return ConfigGroupsHelp(); });  // read when help is printed
}

std::optional<int> Parse(CLI::App& app, const std::vector<std::string>& args) {
  const bool wants_help =
      std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
  if (!wants_help) {
    if (auto unknown = UnknownOption(app, args)) return ReportError(*unknown);
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them last-first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(MakeError(ExitStatus::kUsage, fmt::format("{}: {}", app.get_name(), e.what()))
                           .WithNote(fmt::format("run '{} --help' for its options", app.get_name())));
  }
  return std::nullopt;
}

Result<config::Composition> ComposeFromArgs(const ConfigArgs& args) {
  // profile and trace run -m themselves (cmd_multirun.cc); a sweep without -m is refused.
  if (args.multirun) return MultirunNotSupported();
  for (const auto& text : args.overrides) {
    if (config::LooksLikeSweep(text)) {
      return MakeError(ExitStatus::kUsage, fmt::format("'{}' is a sweep: add -m/--multirun", text))
          .WithNote("profile -m and trace -m run one point per value (docs/sweeps.md); `config` prints one config")
          .WithNote("for a list value write [a,b]; for a string with commas, quote it: key='a,b'");
    }
  }
  config::ComposeRequest request;
  if (!args.config_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(args.config_dir, ec)) {
      return MakeError(ExitStatus::kUsage, fmt::format("--config-dir '{}' is not a folder", args.config_dir));
    }
    request.search_path.push_back(args.config_dir);
  }
  request.search_path.push_back(config::BuiltinConfigDir());
  request.config_name = args.config_name;
  request.overrides = args.overrides;
  request.now = config::ComposeTime();
  std::error_code ec;
  request.cwd = fs::current_path(ec);
  std::vector<std::string> folders;
  for (const auto& dir : request.search_path) folders.push_back(dir.string());
  Verbose() << fmt::format("{}: config search path: {}\n", kToolName, fmt::join(folders, ", "));
  auto composed = config::Compose(request);
  if (composed.ok()) {
    Verbose() << fmt::format("{}: config choices: {}\n", kToolName, fmt::join(composed->choices, "; "));
  }
  return composed;
}

std::optional<int> AnswerHydraQuery(const ConfigArgs& args, const config::Composition& composed) {
  if (!args.cfg.empty()) {
    const config::Node* node = &composed.config;
    if (args.cfg == "hydra") node = config::FindPath(composed.config, config::SplitKey("hydra"));
    std::cout << (node != nullptr ? config::EmitYaml(*node) : std::string("{}\n"));
    return 0;
  }
  if (!args.info) return std::nullopt;
  std::vector<fs::path> search_path;
  if (!args.config_dir.empty()) search_path.push_back(args.config_dir);
  search_path.push_back(config::BuiltinConfigDir());
  std::cout << fmt::format("{} {}\n\nconfig search path (first match wins):\n", kToolName, kToolVersion);
  for (const auto& dir : search_path) {
    std::cout << fmt::format("  {} ({})\n", dir.string(), dir == search_path.back() ? "built-in" : "--config-dir");
  }
  std::cout << fmt::format("\nprimary config: {}.yaml\n\n", args.config_name);
  const config::Repository repo(search_path);
  std::cout << "config groups (GROUP=OPTION, or GROUP@PACKAGE=OPTION):\n";
  for (const auto& [group, options] : GroupsWithOptions(repo)) {
    std::cout << fmt::format("  {}: {}\n", group, fmt::join(options, ", "));
  }
  std::cout << "\ndefaults list (group@package: option, in merge order):\n";
  for (const auto& choice : composed.choices) std::cout << fmt::format("  {}\n", choice);
  return 0;
}

std::string ConfigGroupsHelp() {
  const config::Repository repo = BuiltinRepository();
  std::string text = "config groups (override with GROUP=OPTION or GROUP@PACKAGE=OPTION):\n";
  const auto groups = GroupsWithOptions(repo);
  if (groups.empty()) text += "  (none found: the config tree is missing)\n";
  for (const auto& [group, options] : groups) text += fmt::format("  {}: {}\n", group, fmt::join(options, ", "));
  return text;
}

}  // namespace llmpo::cli
