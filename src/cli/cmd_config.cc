#include <fmt/format.h>

#include <iostream>

#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/config/node_path.h"
#include "src/config/yaml_io.h"
#include "src/core/spellcheck.h"

namespace llmpo::cli {

int RunConfig(const Invocation& inv) {
  CLI::App app{"Print the composed, resolved configuration as YAML.", "llm-perf-opt config"};
  ConfigArgs args;
  std::string package;
  app.add_option("--package,-p", package, "print only this key's subtree, e.g. pipeline.ncu");
  AddConfigOptions(app, args);
  if (auto stop = Parse(app, inv.args)) return *stop;
  auto composed = ComposeFromArgs(args);
  if (!composed.ok()) return ReportError(composed.error());
  if (auto stop = AnswerHydraQuery(args, *composed)) return *stop;
  const config::Node* node = config::FindPath(composed->config, config::SplitKey(package));
  if (node == nullptr) {
    Error e = MakeError(ExitStatus::kUsage, fmt::format("--package '{}' is not in the config", package));
    if (auto near = ClosestMatch(package, config::AllKeyPaths(composed->config))) {
      std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
    }
    std::move(e).WithNote("'llm-perf-opt config' prints every key");
    return ReportError(e);
  }
  std::cout << config::EmitYaml(*node);
  return 0;
}

}  // namespace llmpo::cli
