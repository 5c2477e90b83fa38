#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/pipeline/compare_job.h"
#include "src/cli/run_common.h"

namespace llmpo::cli {

int RunCompare(const Invocation& inv) {
  CLI::App app{
      "Compare runs: what changed, where, and whether it is beyond noise. Each side is an import output folder or a "
      "run folder (their report_set.json), or profiler files of any format `import` reads (a file, a folder of files, "
      "or FILE,FILE,...), imported into OUT/sides/N/. Every side after the first is compared with the first; "
      "writes compare.md, compare.json and compare.html (docs/compare.md).",
      "llm-perf-opt compare"};
  std::vector<std::string> sides;
  std::string out;
  pipeline::CompareRequest request;
  std::optional<double> fail_pct;
  app.add_option("sides", sides, "BASE NEW [MORE...]")->required();
  app.add_option("--out,-o", out, "output folder for compare.md, compare.json and compare.html")->required();
  app.add_option("--threshold", request.options.significance.min_effect_pct,
                 "smallest change, in % of the base, that counts as slower or faster (default 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--alpha", request.options.significance.alpha, "significance level of the noise tests (default 0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  app.add_option("--top", request.options.top,
                 "rows of the attribution, compare.md's tables and compare.html's charts and region table "
                 "(compare.json and compare.html's kernel table have all; default 20)")
      ->check(CLI::PositiveNumber);
  app.add_option("--fail-if-slower", fail_pct,
                 "PCT: exit 8 when the total, a matched region or a matched kernel's mean is slower by PCT % or more, "
                 "beyond noise")
      ->check(CLI::NonNegativeNumber);
  ConfigArgs config;
  app.add_option("--config-dir", config.config_dir, "a folder of your own configs, searched before conf/");
  app.add_option("--set", config.overrides, "config overrides for sides imported on the fly (repeatable)");
  if (auto stop = Parse(app, inv.args)) return *stop;
  auto composed = ComposeFromArgs(config);
  if (!composed.ok()) return ReportError(composed.error());
  auto regions = pipeline::RegionOptionsFromConfig(composed->config);
  if (!regions.ok()) return ReportError(regions.error());

  request.sides = sides;
  request.out_dir = out;
  request.regions = std::move(regions).value();
  auto lock = ClaimOutputFolder(out);
  if (!lock.ok()) return ReportError(lock.error());
  auto outcome = pipeline::RunCompare(request);
  if (!outcome.ok()) return ReportError(outcome.error());
  for (const auto& c : outcome->report.comparisons) {
    Out() << fmt::format("{} against {}: total GPU kernel time {:+.3f} ms ({}), {} kernel(s), {} region(s) compared\n",
                         c.new_label, c.base_label, c.delta_ns / 1e6,
                         c.total_test.change_pct ? fmt::format("{:+.1f} %", *c.total_test.change_pct) : "n/a",
                         c.kernels.size(), c.regions.size());
  }
  Out() << fmt::format("wrote {0}/compare.md\nwrote {0}/compare.json\nwrote {0}/compare.html\n", out);
  if (!fail_pct) return 0;
  const auto slower = report::SlowerThan(outcome->report, *fail_pct);
  if (slower.empty()) return 0;
  Error error = MakeError(ExitStatus::kSlower, fmt::format("compare: {} change(s) slower by {} % or more, beyond noise",
                                                           slower.size(), *fail_pct));
  error.notes.insert(error.notes.end(), slower.begin(), slower.end());
  return ReportError(error);
}

}  // namespace llmpo::cli
