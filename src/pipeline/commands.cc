#include "src/pipeline/commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include <array>
#include <cstdint>

#include "src/config/node_path.h"
#include "src/config/scalar.h"
#include "src/core/spellcheck.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using config::Node;

namespace {

const Node* At(const Node& root, const std::string& key) { return config::FindPath(root, config::SplitKey(key)); }

std::optional<std::string> Text(const Node& root, const std::string& key) {
  const Node* n = At(root, key);
  if (n == nullptr || n->is_null()) return std::nullopt;
  return config::ScalarToText(*n);
}

bool Flag(const Node& root, const std::string& key, bool fallback) {
  const Node* n = At(root, key);
  return (n != nullptr && n->is_boolean()) ? n->get<bool>() : fallback;
}

std::vector<std::string> List(const Node* n) {
  std::vector<std::string> out;
  if (n == nullptr || n->is_null()) return out;
  if (n->is_array()) {
    for (const auto& item : *n) out.push_back(config::ScalarToText(item));
  } else {
    out.push_back(config::ScalarToText(*n));
  }
  return out;
}

// A value that must be one of `allowed`; null/absent is fine (tool default).
Status CheckChoice(const Node& root, const std::string& key, std::span<const std::string> allowed) {
  auto value = Text(root, key);
  if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return OkStatus();
  Error e = MakeError(ExitStatus::kUsage, fmt::format("{}={} is not valid", key, *value));
  if (auto near = ClosestMatch(*value, allowed)) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
  return std::move(e).WithNote(fmt::format("choose one of: {}", fmt::join(allowed, ", ")));
}

void AddOption(Argv& argv, const std::string& flag, const std::optional<std::string>& value) {
  if (!value) return;
  argv.push_back(flag);
  argv.push_back(*value);
}

std::string Trim(std::string s) {
  const auto a = s.find_first_not_of(" \t");
  const auto b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

const std::array<std::string, 4> kReplayModes = {"kernel", "application", "range", "app-range"};
const std::array<std::string, 2> kTargetProcesses = {"all", "application-only"};
const std::array<std::string, 3> kNameBases = {"function", "demangled", "mangled"};
const std::array<std::string, 2> kCacheControl = {"all", "none"};
const std::array<std::string, 5> kClockControl = {"base", "boost", "force-boost", "none", "reset"};
const std::array<std::string, 2> kGraphProfiling = {"node", "graph"};
const std::array<std::string, 4> kCaptureRanges = {"none", "nvtx", "cudaProfilerApi", "hotkey"};
// `ncu --list-sets` of recent versions (nsight-reference.md A.4).
const std::array<std::string, 6> kSets = {"basic", "detailed", "full", "nvlink", "pmsampling", "roofline"};
// The identifiers of ncu's standard sections (`ncu --list-sections`).
const std::array<std::string, 24> kSections = {
    "C2CLink",
    "ComputeWorkloadAnalysis",
    "InstructionStats",
    "LaunchStats",
    "MemoryWorkloadAnalysis",
    "MemoryWorkloadAnalysis_Chart",
    "MemoryWorkloadAnalysis_Tables",
    "NumaAffinity",
    "Nvlink",
    "Nvlink_Tables",
    "Nvlink_Topology",
    "Occupancy",
    "PmSampling",
    "PmSampling_WarpStates",
    "SchedulerStats",
    "SourceCounters",
    "SpeedOfLight",
    "SpeedOfLight_HierarchicalDoubleRooflineChart",
    "SpeedOfLight_HierarchicalHalfRooflineChart",
    "SpeedOfLight_HierarchicalSingleRooflineChart",
    "SpeedOfLight_HierarchicalTensorRooflineChart",
    "SpeedOfLight_RooflineChart",
    "WarpStateStats",
    "WorkloadDistribution",
};

constexpr const char* kNcu = "pipeline.ncu.ncu_cli.";

// --launch-skip / --launch-count: a non-negative integer, or null (ncu's default).
Status CheckCount(const Node& c, const std::string& key) {
  const Node* n = At(c, key);
  if (n == nullptr || n->is_null()) return OkStatus();
  if (n->is_number_unsigned() || (n->is_number_integer() && n->get<std::int64_t>() >= 0)) return OkStatus();
  const std::string value = n->is_primitive() ? config::ScalarToText(*n) : n->dump();
  return MakeError(ExitStatus::kUsage,
                   fmt::format("{}={} is not valid: it must be a non-negative integer (or null)", key, value))
      .WithNote(fmt::format("e.g. {}=10", key));
}

// --section: standard identifiers, or regex:EXPR (passed on unchecked).
Status CheckSections(const Node& c) {
  const std::string key = std::string(kNcu) + "sections";
  for (const auto& s : List(At(c, key))) {
    if (s.starts_with("regex:") || std::find(kSections.begin(), kSections.end(), s) != kSections.end()) continue;
    Error e = MakeError(ExitStatus::kUsage, fmt::format("{}: '{}' is not a known ncu section identifier", key, s));
    if (auto near = ClosestMatch(s, kSections)) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
    return std::move(e)
        .WithNote(fmt::format("known identifiers: {}", fmt::join(kSections, ", ")))
        .WithNote("`ncu --list-sections` lists your version's; give another as regex:^ID$");
  }
  return OkStatus();
}

Status CheckNcuChoices(const Node& c) {
  RETURN_IF_ERROR(CheckChoice(c, std::string(kNcu) + "replay_mode", kReplayModes));
  RETURN_IF_ERROR(CheckChoice(c, std::string(kNcu) + "set", kSets));
  RETURN_IF_ERROR(CheckSections(c));
  RETURN_IF_ERROR(CheckCount(c, std::string(kNcu) + "launch_skip"));
  RETURN_IF_ERROR(CheckCount(c, std::string(kNcu) + "launch_count"));
  RETURN_IF_ERROR(CheckChoice(c, std::string(kNcu) + "target_processes", kTargetProcesses));
  RETURN_IF_ERROR(CheckChoice(c, std::string(kNcu) + "kernel_name_base", kNameBases));
  RETURN_IF_ERROR(CheckChoice(c, std::string(kNcu) + "cache_control", kCacheControl));
  RETURN_IF_ERROR(CheckChoice(c, std::string(kNcu) + "clock_control", kClockControl));
  return CheckChoice(c, std::string(kNcu) + "graph_profiling", kGraphProfiling);
}

void AddNvtx(const Node& c, Argv& argv) {
  if (!Flag(c, "pipeline.ncu.gating_nvtx", true)) return;
  const auto include = NvtxExpressions(At(c, std::string(kNcu) + "nvtx.include"));
  const auto exclude = NvtxExpressions(At(c, std::string(kNcu) + "nvtx.exclude"));
  argv.push_back("--nvtx");  // NVTX state in the report, so regions can be attributed
  for (const auto& e : include) argv.insert(argv.end(), {"--nvtx-include", e});
  for (const auto& e : exclude) argv.insert(argv.end(), {"--nvtx-exclude", e});
}

fs::path NcuReportBase(const CommandContext& ctx) { return ctx.run_dir / "ncu" / "profile"; }

}  // namespace

std::vector<std::string> NvtxExpressions(const Node* value) {
  std::vector<std::string> out;
  for (const auto& item : List(value)) {
    std::size_t start = 0;
    while (start <= item.size()) {
      const std::size_t semi = item.find(';', start);
      std::string e = Trim(item.substr(start, semi == std::string::npos ? std::string::npos : semi - start));
      if (!e.empty()) {
        const bool shaped = e.starts_with("regex:") || e.find_first_of("/[],") != std::string::npos;
        out.push_back(shaped ? e : e + "/");
      }
      if (semi == std::string::npos) break;
      start = semi + 1;
    }
  }
  return out;
}

Result<Argv> BuildNcuCommand(const Node& c, const CommandContext& ctx) {
  RETURN_IF_ERROR(CheckNcuChoices(c));
  const std::string k = kNcu;
  Argv argv = {"ncu", "--config-file", "off"};  // a stray user config must not change the run
  AddOption(argv, "--target-processes", Text(c, k + "target_processes"));
  AddOption(argv, "--replay-mode", Text(c, k + "replay_mode"));
  AddOption(argv, "--set", Text(c, k + "set"));
  for (const auto& s : List(At(c, k + "sections"))) argv.insert(argv.end(), {"--section", s});
  const auto metrics = List(At(c, k + "metrics"));
  if (!metrics.empty()) argv.insert(argv.end(), {"--metrics", fmt::format("{}", fmt::join(metrics, ","))});
  AddNvtx(c, argv);
  std::optional<std::string> kernel_name =
      ctx.kernel_regex ? std::optional("regex:" + *ctx.kernel_regex) : Text(c, k + "kernel_name");
  if (kernel_name) {
    AddOption(argv, "--kernel-name-base",
              ctx.kernel_regex && ctx.kernel_name_base ? ctx.kernel_name_base : Text(c, k + "kernel_name_base"));
    AddOption(argv, "--kernel-name", kernel_name);
  }
  AddOption(argv, "--launch-skip", Text(c, k + "launch_skip"));
  AddOption(argv, "--launch-count", Text(c, k + "launch_count"));
  AddOption(argv, "--range-filter", Text(c, k + "range_filter"));
  AddOption(argv, "--cache-control", Text(c, k + "cache_control"));
  AddOption(argv, "--clock-control", Text(c, k + "clock_control"));
  AddOption(argv, "--graph-profiling", Text(c, k + "graph_profiling"));
  argv.insert(argv.end(), {"--export", NcuReportBase(ctx).string()});
  if (Flag(c, k + "force_overwrite", true)) argv.push_back("--force-overwrite");
  argv.insert(argv.end(), ctx.workload.begin(), ctx.workload.end());
  return argv;
}

std::vector<PlannedCommand> BuildNcuExports(const Node& c, const CommandContext& ctx) {
  const std::string report = NcuReportBase(ctx).string() + ".ncu-rep";
  const bool nvtx = Flag(c, "pipeline.ncu.gating_nvtx", true);
  std::vector<PlannedCommand> out;
  for (const char* page : {"details", "raw"}) {
    Argv argv = {"ncu", "--config-file", "off", "--import", report, "--csv", "--page", page, "--print-units", "base"};
    if (nvtx) argv.push_back("--nvtx");
    out.push_back({fmt::format("ncu-export-{}", page), argv, fmt::format("ncu/{}.csv", page)});
  }
  const auto sections = List(At(c, std::string(kNcu) + "sections"));
  if (!sections.empty()) {
    Argv argv = {"ncu", "--config-file", "off", "--import", report, "--page", "details"};
    for (const auto& s : sections) argv.insert(argv.end(), {"--section", s});
    out.push_back({"ncu-sections-report", argv, "ncu/sections_report.txt"});
  }
  return out;
}

Result<Argv> BuildNsysCommand(const Node& c, const CommandContext& ctx) {
  RETURN_IF_ERROR(CheckChoice(c, "pipeline.nsys.capture_range", kCaptureRanges));
  Argv argv = {"nsys", "profile"};
  if (auto trace = Text(c, "pipeline.nsys.trace")) argv.push_back("--trace=" + *trace);
  if (auto sample = Text(c, "pipeline.nsys.sample")) argv.push_back("--sample=" + *sample);
  std::string capture = Text(c, "pipeline.nsys.capture_range").value_or("none");
  if (!Flag(c, "pipeline.nsys.gating_nvtx", true) && capture == "nvtx") capture = "none";
  const auto nvtx_capture = Text(c, "pipeline.nsys.nvtx_capture");
  if (capture == "nvtx" && !nvtx_capture) {
    return MakeError(ExitStatus::kUsage, "pipeline.nsys.capture_range=nvtx needs pipeline.nsys.nvtx_capture")
        .WithNote("name the range, e.g. pipeline.nsys.nvtx_capture=decode (or decode@LLM for a domain)");
  }
  if (capture != "none") {
    argv.push_back("--capture-range=" + capture);
    if (auto end = Text(c, "pipeline.nsys.capture_range_end")) argv.push_back("--capture-range-end=" + *end);
  }
  if (capture == "nvtx") {
    argv.push_back("--nvtx-capture=" + *nvtx_capture);
    // Without this nsys matches only registered NVTX strings, which most code never registers.
    argv.push_back("--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0");
  }
  if (auto graphs = Text(c, "pipeline.nsys.cuda_graph_trace")) argv.push_back("--cuda-graph-trace=" + *graphs);
  argv.push_back("--output=" + (ctx.run_dir / "nsys" / "run").string());
  argv.push_back("--force-overwrite=true");
  argv.insert(argv.end(), ctx.workload.begin(), ctx.workload.end());
  return argv;
}

std::vector<PlannedCommand> BuildNsysPostprocessing(const CommandContext& ctx) {
  const std::string report = (ctx.run_dir / "nsys" / "run.nsys-rep").string();
  return {
      {"nsys-stats",
       {"nsys", "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "--force-export=true", "--output",
        (ctx.run_dir / "nsys" / "summary").string(), report},
       ""},
      {"nsys-export",
       {"nsys", "export", "--type", "sqlite", "--force-overwrite", "true", "--output",
        (ctx.run_dir / "nsys" / "run.sqlite").string(), report},
       ""},
  };
}

Argv BuildTraceCommand(const CommandContext& ctx) {
  const std::string lib = ctx.tracer_library.string();
  Argv argv = {"env", "NVTX_INJECTION64_PATH=" + lib, "CUDA_INJECTION64_PATH=" + lib,
               "LLMPO_TRACE_FILE=" + (ctx.run_dir / "trace" / "trace.%p.tsv").string()};
  argv.insert(argv.end(), ctx.workload.begin(), ctx.workload.end());
  return argv;
}

std::vector<Error> NcuWarnings(const Node& c, bool bundled_workload) {
  std::vector<Error> warnings;
  if (!Flag(c, "pipeline.ncu.enable", false)) return warnings;
  const std::string key = std::string(kNcu) + "replay_mode";
  const auto replay = Text(c, key);
  if (!replay || (*replay != "range" && *replay != "app-range")) return warnings;
  const bool nvtx =
      Flag(c, "pipeline.ncu.gating_nvtx", true) && !NvtxExpressions(At(c, std::string(kNcu) + "nvtx.include")).empty();
  if (nvtx || bundled_workload || Flag(c, "pipeline.workload.cuda_profiler_api", false)) return warnings;
  warnings.push_back(
      MakeError(ExitStatus::kUsage,
                fmt::format("{}={} has no range to profile: no NVTX include is set ({}nvtx.include{}) and the "
                            "workload is not marked as calling cudaProfilerStart/Stop",
                            key, *replay, kNcu,
                            Flag(c, "pipeline.ncu.gating_nvtx", true) ? "" : ", and pipeline.ncu.gating_nvtx=false"))
          .WithNote("range replay profiles the ranges --nvtx-include names, else the cudaProfilerStart/Stop section; "
                    "with neither, ncu reports \"No ranges were profiled\"")
          .WithNote(
              fmt::format("fix: name the ranges, e.g. '{}nvtx.include=[decode]'; or set "
                          "pipeline.workload.cuda_profiler_api=true when the program calls cudaProfilerStart/Stop; "
                          "or profile per kernel with {}=kernel",
                          kNcu, key)));
  return warnings;
}

Result<int> TopKernelCount(const Node& c) {
  const Node* n = At(c, "pipeline.ncu.top_kernels");
  if (n == nullptr || n->is_null()) return 0;
  if (!n->is_number_integer() || n->get<int>() < 0) {
    return MakeError(ExitStatus::kUsage, "pipeline.ncu.top_kernels must be a count (or null)");
  }
  const int count = n->get<int>();
  if (count > 0 && !Flag(c, "pipeline.nsys.enable", false) && !Flag(c, "pipeline.trace.enable", false)) {
    return MakeError(
               ExitStatus::kUsage,
               "pipeline.ncu.top_kernels needs a timeline: pipeline.trace.enable=true or pipeline.nsys.enable=true")
        .WithNote(
            "the top kernels come from the timeline's kernel summary; enable one, or set "
            "pipeline.ncu.top_kernels=null");
  }
  return count;
}

Result<double> StepTimeout(const Node& c) {
  const Node* n = At(c, "pipeline.step_timeout_s");
  if (n == nullptr || n->is_null()) return 0.0;
  if (!n->is_number() || n->get<double>() <= 0) {
    return MakeError(ExitStatus::kUsage, "pipeline.step_timeout_s must be a positive number of seconds (or null)")
        .WithNote("e.g. pipeline.step_timeout_s=1800");
  }
  return n->get<double>();
}

std::string KernelNamesRegex(const std::vector<std::string>& names) {
  std::string out = "^(";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? "|" : "") + RE2::QuoteMeta(names[i]);
  return out + ")$";
}

Result<std::vector<PlannedCommand>> PlanProfile(const Node& c, const CommandContext& ctx_in) {
  ASSIGN_OR_RETURN(int top, TopKernelCount(c));
  RETURN_IF_ERROR(StepTimeout(c));
  CommandContext ctx = ctx_in;
  if (top > 0 && !ctx.kernel_regex) {
    ctx.kernel_regex = fmt::format("<the top {} kernels by GPU time in {}/summary_cuda_gpu_kern_sum.csv>", top,
                                   Flag(c, "pipeline.nsys.enable", false) ? "nsys" : "trace");
  }
  std::vector<PlannedCommand> plan;
  if (Flag(c, "pipeline.trace.enable", false)) plan.push_back({"trace", BuildTraceCommand(ctx), ""});
  if (Flag(c, "pipeline.nsys.enable", false)) {
    ASSIGN_OR_RETURN(Argv nsys, BuildNsysCommand(c, ctx));
    plan.push_back({"nsys", nsys, ""});
    for (auto& cmd : BuildNsysPostprocessing(ctx)) plan.push_back(std::move(cmd));
  }
  if (Flag(c, "pipeline.ncu.enable", false)) {
    ASSIGN_OR_RETURN(Argv ncu, BuildNcuCommand(c, ctx));
    plan.push_back({"ncu", ncu, ""});
    for (auto& cmd : BuildNcuExports(c, ctx)) plan.push_back(std::move(cmd));
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
