#include <iostream>

#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/config/yaml_io.h"

namespace llmpo::cli {

int RunConfig(const Invocation& inv) {
  CLI::App app{"Print the composed, resolved configuration as YAML.", "llm-perf-opt config"};
  ConfigArgs args;
  AddConfigOptions(app, args);
  if (auto stop = Parse(app, inv.args)) return *stop;
  auto composed = ComposeFromArgs(args);
  if (!composed.ok()) return ReportError(composed.error());
  std::cout << config::EmitYaml(composed->config);
  return 0;
}

}  // namespace llmpo::cli
