#include "src/cli/parse_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "src/cli/diagnostics.h"
#include "src/config/repository.h"

namespace llmpo::cli {
namespace fs = std::filesystem;

void AddConfigOptions(CLI::App& app, ConfigArgs& args) {
  app.add_option("--config-dir", args.config_dir, "a folder of your own configs, searched before the built-in conf/");
  app.add_option("--config-name", args.config_name, "the primary config (default: config)");
  app.add_option("overrides", args.overrides,
                 "Hydra-style overrides: key=value, +key=value, ++key=value, ~key, group@pkg=option");
}

std::optional<int> Parse(CLI::App& app, const std::vector<std::string>& args) {
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
  return config::Compose(request);
}

}  // namespace llmpo::cli
