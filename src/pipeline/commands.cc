#include "src/pipeline/commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include "src/pipeline/rank_plan.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

void AddOption(Argv& argv, const std::string& flag, const std::optional<std::string>& value) {
  if (!value) return;
  argv.push_back(flag);
  argv.push_back(*value);
}

void AddNvtx(const NcuOptions& o, Argv& argv) {
  if (!o.gating_nvtx) return;
  argv.push_back("--nvtx");  // NVTX state in the report, so regions can be attributed
  for (const auto& e : o.nvtx_include) argv.insert(argv.end(), {"--nvtx-include", e});
  for (const auto& e : o.nvtx_exclude) argv.insert(argv.end(), {"--nvtx-exclude", e});
}

fs::path NcuReportBase(const CommandContext& ctx) { return ctx.run_dir / "ncu" / ("profile" + ctx.output_suffix); }

const InstalledTools& Tools(const CommandContext& ctx) {
  static const InstalledTools kNewest;
  return ctx.tools ? *ctx.tools : kNewest;
}

// `ncu`, with `--config-file off` where the installed ncu has the option (2022.3 has not).
Argv Ncu(const CommandContext& ctx) {
  Argv argv = {"ncu"};
  // a stray user config must not change the run
  if (NcuHasOption(Tools(ctx), "--config-file")) argv.insert(argv.end(), {"--config-file", "off"});
  return argv;
}

constexpr const char* kNcu = "pipeline.ncu.ncu_cli.";

}  // namespace

Argv BuildNcuCommand(const NcuOptions& o, const CommandContext& ctx) {
  Argv argv = Ncu(ctx);
  AddOption(argv, "--target-processes", o.target_processes);
  AddOption(argv, "--replay-mode", o.replay_mode);
  AddOption(argv, "--set", o.set);
  for (const auto& s : o.sections) {
    if (NcuKeepsSection(Tools(ctx), s)) argv.insert(argv.end(), {"--section", s});
  }
  std::vector<std::string> metrics;
  for (const auto& m : o.metrics) {
    if (NcuKeepsMetric(Tools(ctx), o, m)) metrics.push_back(m);
  }
  if (!metrics.empty()) argv.insert(argv.end(), {"--metrics", fmt::format("{}", fmt::join(metrics, ","))});
  AddNvtx(o, argv);
  const std::optional<std::string> kernel_name =
      ctx.kernel_regex ? std::optional("regex:" + *ctx.kernel_regex) : o.kernel_name;
  if (kernel_name) {
    AddOption(argv, "--kernel-name-base",
              ctx.kernel_regex && ctx.kernel_name_base ? ctx.kernel_name_base : o.kernel_name_base);
    AddOption(argv, "--kernel-name", kernel_name);
  }
  AddOption(argv, "--launch-skip", o.launch_skip);
  AddOption(argv, "--launch-count", o.launch_count);
  AddOption(argv, "--range-filter", o.range_filter);
  AddOption(argv, "--cache-control", o.cache_control);
  AddOption(argv, "--clock-control", o.clock_control);
  AddOption(argv, "--graph-profiling", o.graph_profiling);
  argv.insert(argv.end(), {"--export", NcuReportBase(ctx).string()});
  if (o.force_overwrite) argv.push_back("--force-overwrite");
  argv.insert(argv.end(), ctx.workload.begin(), ctx.workload.end());
  return argv;
}

std::vector<PlannedCommand> BuildNcuExports(const NcuOptions& o, const CommandContext& ctx) {
  const std::string report = NcuReportBase(ctx).string() + ".ncu-rep";
  std::vector<PlannedCommand> out;
  for (const char* page : {"details", "raw"}) {
    Argv argv = Ncu(ctx);
    argv.insert(argv.end(), {"--import", report, "--csv", "--page", page, "--print-units", "base"});
    out.push_back({fmt::format("ncu-export-{}", page), argv, fmt::format("ncu/{}.csv", page)});
  }
  if (!o.sections.empty()) {
    Argv argv = Ncu(ctx);
    argv.insert(argv.end(), {"--import", report, "--page", "details"});
    for (const auto& s : o.sections) {
      if (NcuKeepsSection(Tools(ctx), s)) argv.insert(argv.end(), {"--section", s});
    }
    out.push_back({"ncu-sections-report", argv, "ncu/sections_report.txt"});
  }
  return out;
}

Argv BuildNsysCommand(const NsysOptions& o, const CommandContext& ctx) {
  Argv argv = {"nsys", "profile"};
  if (o.trace) argv.push_back("--trace=" + *o.trace);
  if (o.sample) argv.push_back("--sample=" + *o.sample);
  if (o.cpuctxsw) argv.push_back("--cpuctxsw=" + *o.cpuctxsw);
  if (o.capture_range != "none") {
    argv.push_back("--capture-range=" + o.capture_range);
    if (o.capture_range_end) argv.push_back("--capture-range-end=" + *o.capture_range_end);
  }
  if (o.capture_range == "nvtx") {
    argv.push_back("--nvtx-capture=" + *o.nvtx_capture);
    // Without this nsys matches only registered NVTX strings, which most code never registers.
    argv.push_back("--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0");
  }
  if (o.cuda_graph_trace) argv.push_back("--cuda-graph-trace=" + *o.cuda_graph_trace);
  argv.push_back("--output=" + (ctx.run_dir / "nsys" / ("run" + ctx.output_suffix)).string());
  argv.push_back("--force-overwrite=true");
  argv.insert(argv.end(), ctx.workload.begin(), ctx.workload.end());
  return argv;
}

std::vector<PlannedCommand> BuildNsysPostprocessing(const CommandContext& ctx) {
  const std::string report = (ctx.run_dir / "nsys" / "run.nsys-rep").string();
  return {
      {"nsys-stats",
       {"nsys", "stats", "--report", NsysKernelSumReport(Tools(ctx)), "--format", "csv", "--force-export=true", "--output",
        (ctx.run_dir / "nsys" / "summary").string(), report},
       ""},
      {"nsys-export",
       {"nsys", "export", "--type", "sqlite", "--force-overwrite", "true", "--output",
        (ctx.run_dir / "nsys" / "run.sqlite").string(), report},
       ""},
  };
}

PlannedCommand BuildTraceCommand(const CommandContext& ctx) {
  const std::string lib = ctx.tracer_library.string();
  return PlannedCommand{"trace",
                        ctx.workload,
                        "",
                        {"NVTX_INJECTION64_PATH=" + lib, "CUDA_INJECTION64_PATH=" + lib,
                         "LLMPO_TRACE_FILE=" + (ctx.run_dir / "trace" / ("trace" + ctx.output_suffix + ".%p.tsv")).string()}};
}

Argv CommandLine(const PlannedCommand& cmd) {
  if (cmd.env.empty()) return cmd.argv;
  Argv line = {"env"};
  line.insert(line.end(), cmd.env.begin(), cmd.env.end());
  line.insert(line.end(), cmd.argv.begin(), cmd.argv.end());
  return line;
}

std::vector<Error> NcuWarnings(const ProfileOptions& o, bool bundled_workload) {
  std::vector<Error> warnings;
  if (!o.ncu.enable) return warnings;
  const std::string key = std::string(kNcu) + "replay_mode";
  const auto& replay = o.ncu.replay_mode;
  if (!replay || (*replay != "range" && *replay != "app-range")) return warnings;
  const bool nvtx = o.ncu.gating_nvtx && !o.ncu.nvtx_include.empty();
  if (nvtx || bundled_workload || o.cuda_profiler_api) return warnings;
  warnings.push_back(
      MakeError(ExitStatus::kUsage,
                fmt::format("{}={} has no range to profile: no NVTX include is set ({}nvtx.include{}) and the "
                            "workload is not marked as calling cudaProfilerStart/Stop",
                            key, *replay, kNcu, o.ncu.gating_nvtx ? "" : ", and pipeline.ncu.gating_nvtx=false"))
          .WithNote("range replay profiles the ranges --nvtx-include names, else the cudaProfilerStart/Stop section; "
                    "with neither, ncu reports \"No ranges were profiled\"")
          .WithNote(
              fmt::format("fix: name the ranges, e.g. '{}nvtx.include=[decode]'; or set "
                          "pipeline.workload.cuda_profiler_api=true when the program calls cudaProfilerStart/Stop; "
                          "or profile per kernel with {}=kernel",
                          kNcu, key)));
  return warnings;
}

std::string KernelNamesRegex(const std::vector<std::string>& names) {
  std::string out = "^(";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? "|" : "") + RE2::QuoteMeta(names[i]);
  return out + ")$";
}

std::vector<PlannedCommand> PlanProfile(const ProfileOptions& o, const CommandContext& ctx_in) {
  if (ctx_in.launch) return PlanUnderLauncher(o, ctx_in);  // top_kernels is refused there (ReadProfileOptions)
  CommandContext ctx = ctx_in;
  if (o.ncu.top_kernels > 0 && !ctx.kernel_regex) {
    ctx.kernel_regex = fmt::format("<the top {} kernels by GPU time in {}>", o.ncu.top_kernels,
                                   o.nsys.enable ? "nsys/run.sqlite" : "trace/trace.*.tsv");
  }
  std::vector<PlannedCommand> plan;
  if (o.trace) plan.push_back(BuildTraceCommand(ctx));
  if (o.nsys.enable) {
    plan.push_back({"nsys", BuildNsysCommand(o.nsys, ctx), ""});
    for (auto& cmd : BuildNsysPostprocessing(ctx)) plan.push_back(std::move(cmd));
  }
  if (o.ncu.enable) {
    plan.push_back({"ncu", BuildNcuCommand(o.ncu, ctx), ""});
    for (auto& cmd : BuildNcuExports(o.ncu, ctx)) plan.push_back(std::move(cmd));
  }
  return plan;
}

std::string ShellQuote(const Argv& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-./=:,@%+") == std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    out += '\'';
  }
  return out;
}

}  // namespace llmpo::pipeline
