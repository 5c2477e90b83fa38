#include <fmt/format.h>

#include <iostream>

#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/pipeline/import_job.h"

namespace llmpo::cli {

int RunImport(const Invocation& inv) {
  CLI::App app{
      "Build kernels.md and kernels.json from existing profiler outputs: ncu CSV (details, raw, "
      "--print-summary), .ncu-rep (needs ncu), nsys stats CSV, nsys SQLite exports. The format is "
      "detected from the content.",
      "llm-perf-opt import"};
  std::vector<std::string> inputs;
  std::string out;
  std::size_t top = 50;
  app.add_option("inputs", inputs, "profiler output files")->required();
  app.add_option("--out,-o", out, "output folder for kernels.md and kernels.json")->required();
  app.add_option("--top", top, "kernels per table in kernels.md (kernels.json has all)")->check(CLI::PositiveNumber);
  if (auto stop = Parse(app, inv.args)) return *stop;

  pipeline::ImportRequest request;
  request.inputs.assign(inputs.begin(), inputs.end());
  request.out_dir = out;
  request.top_k = top;
  auto outcome = pipeline::RunImport(request);
  if (!outcome.ok()) return ReportError(outcome.error());

  int exit_code = 0;
  for (const auto& failure : outcome->failures) exit_code = ReportError(failure);
  const auto& report = outcome->report;
  std::cout << fmt::format("imported {} of {} input(s): {} kernel(s), {} row(s) read, {} skipped\n",
                           report.sources.size() - outcome->failures.size(), report.sources.size(),
                           report.kernels.size(), report.diagnostics.rows_read(), report.diagnostics.rows_skipped());
  for (const auto& file : outcome->written) std::cout << fmt::format("wrote {}/{}\n", out, file);
  return exit_code;
}

}  // namespace llmpo::cli
