// llm-perf-opt merge PARTIALS... --out DIR | --partial OUT.json: partial
// results (import --partial) reduced to one, in the order given; the
// reports an import of every input would write, or a partial again.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/cli/partial_cli.h"
#include "src/cli/subcommands.h"
#include "src/pipeline/partial_merge.h"

namespace llmpo::cli {

int RunMerge(const Invocation& inv) {
  CLI::App app{
      "Merge partial results (written by `import --partial OUT.json FILES...`, or by merge --partial) into the "
      "reports one import of all their inputs writes, or into one partial again. Partials merge in the order "
      "given; partials of different jobs, an input or a rank held twice, or different world sizes are refused.",
      "llm-perf-opt merge"};
  std::vector<std::string> partials;
  std::string out, partial;
  std::size_t top = 50;
  app.add_option("partials", partials, "partial result files (.json)")->required();
  app.add_option("--out,-o", out, "output folder for the reports (as `import` writes them)");
  app.add_option("--partial", partial, "write the merged partial to this file instead of reports");
  app.add_option("--top", top, "kernels per table in kernels.md (kernels.json has all)")->check(CLI::PositiveNumber);
  ConfigArgs config;
  app.add_option("--config-dir", config.config_dir, "a folder of your own configs, searched before conf/");
  app.add_option("--config-name", config.config_name, "the primary config (default: config)");
  app.add_option("--set", config.overrides, "config overrides for the region report (repeatable), as for import");
  if (auto stop = Parse(app, inv.args)) return *stop;
  if (out.empty() == partial.empty()) {
    return ReportError(MakeError(ExitStatus::kUsage, "merge: give exactly one of --out DIR and --partial FILE")
                           .WithNote("--out writes the reports; --partial writes a partial that merges again"));
  }
  auto request = RequestFromConfig(config, top);
  if (!request.ok()) return ReportError(request.error());
  // One partial read at a time, merged and dropped before the next.
  pipeline::PartialMerger merger;
  for (const auto& file : partials) {
    auto read = pipeline::ReadPartialFile(file);
    if (!read.ok()) return ReportError(read.error());
    const Status added = merger.Add(std::move(read).value());
    if (!added.ok()) return ReportError(added.error());
  }
  auto merged = merger.Finish();
  if (!merged.ok()) return ReportError(merged.error());
  Out() << fmt::format("merged {} partial(s): {} input(s)\n", partials.size(), merged->sources.size());
  WarnFailedInputs(*merged);
  if (!partial.empty()) {
    const Status wrote = WritePartial(*merged, partial);
    return wrote.ok() ? 0 : ReportError(wrote.error());
  }
  request->out_dir = out;
  return WriteReportsFromPartial(std::move(merged).value(), *request);
}

}  // namespace llmpo::cli
