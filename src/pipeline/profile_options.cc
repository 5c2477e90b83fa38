#include "src/pipeline/profile_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "src/config/node_path.h"
#include "src/config/scalar.h"
#include "src/core/spellcheck.h"

namespace llmpo::pipeline {
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

// pipeline.ncu.top_kernels as a count (0: off). Needs a timeline: nsys or
// the tracer enabled.
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

// pipeline.step_timeout_s in seconds (0: no limit).
Result<double> StepTimeout(const Node& c) {
  const Node* n = At(c, "pipeline.step_timeout_s");
  if (n == nullptr || n->is_null()) return 0.0;
  if (!n->is_number() || n->get<double>() <= 0) {
    return MakeError(ExitStatus::kUsage, "pipeline.step_timeout_s must be a positive number of seconds (or null)")
        .WithNote("e.g. pipeline.step_timeout_s=1800");
  }
  return n->get<double>();
}

const std::array<std::string, 5> kLaunchers = {"auto", "none", "torchrun", "mpirun", "srun"};

// pipeline.ncu.ranks: a list of ranks, one rank, or "all" (null: all).
Result<std::optional<std::vector<std::int64_t>>> NcuRanks(const Node& c) {
  const Node* n = At(c, "pipeline.ncu.ranks");
  using Ranks = std::optional<std::vector<std::int64_t>>;
  if (n == nullptr) return Ranks(std::vector<std::int64_t>{0});
  if (n->is_null() || (n->is_string() && n->get<std::string>() == "all")) return Ranks();
  std::vector<std::int64_t> ranks;
  for (const Node& item : n->is_array() ? *n : Node::array({*n})) {
    if (!item.is_number_integer() || item.get<std::int64_t>() < 0) {
      return MakeError(ExitStatus::kUsage,
                       fmt::format("pipeline.ncu.ranks={} is not valid: it must be a list of ranks or all",
                                   n->is_primitive() ? config::ScalarToText(*n) : n->dump()))
          .WithNote("e.g. pipeline.ncu.ranks=[0] (the default), pipeline.ncu.ranks=[0,4] or pipeline.ncu.ranks=all");
    }
    ranks.push_back(item.get<std::int64_t>());
  }
  if (ranks.empty()) {
    return MakeError(ExitStatus::kUsage, "pipeline.ncu.ranks=[] names no rank")
        .WithNote("name at least one, e.g. pipeline.ncu.ranks=[0], or disable ncu (pipeline.ncu.enable=false)");
  }
  return Ranks(std::move(ranks));
}

// pipeline.ncu.lockstep: true, false or auto (null: auto).
Result<std::optional<bool>> NcuLockstepChoice(const Node& c) {
  const Node* n = At(c, "pipeline.ncu.lockstep");
  if (n == nullptr || n->is_null() || (n->is_string() && n->get<std::string>() == "auto")) return std::optional<bool>();
  if (n->is_boolean()) return std::optional<bool>(n->get<bool>());
  return MakeError(ExitStatus::kUsage,
                   fmt::format("pipeline.ncu.lockstep={} is not valid: it must be true, false or auto",
                               n->is_primitive() ? config::ScalarToText(*n) : n->dump()))
      .WithNote("auto (the default) turns it on when pipeline.ncu.ranks names more than one rank");
}

Status CheckNsys(const Node& c) {
  RETURN_IF_ERROR(CheckChoice(c, "pipeline.nsys.capture_range", kCaptureRanges));
  const std::string capture = Text(c, "pipeline.nsys.capture_range").value_or("none");
  if (capture == "nvtx" && Flag(c, "pipeline.nsys.gating_nvtx", true) && !Text(c, "pipeline.nsys.nvtx_capture")) {
    return MakeError(ExitStatus::kUsage, "pipeline.nsys.capture_range=nvtx needs pipeline.nsys.nvtx_capture")
        .WithNote("name the range, e.g. pipeline.nsys.nvtx_capture=decode (or decode@LLM for a domain)");
  }
  return OkStatus();
}

NsysOptions ReadNsys(const Node& c) {
  NsysOptions o;
  o.enable = Flag(c, "pipeline.nsys.enable", false);
  o.gating_nvtx = Flag(c, "pipeline.nsys.gating_nvtx", true);
  o.trace = Text(c, "pipeline.nsys.trace");
  o.sample = Text(c, "pipeline.nsys.sample");
  o.cpuctxsw = Text(c, "pipeline.nsys.cpuctxsw");
  o.capture_range = Text(c, "pipeline.nsys.capture_range").value_or("none");
  if (!o.gating_nvtx && o.capture_range == "nvtx") o.capture_range = "none";
  o.nvtx_capture = Text(c, "pipeline.nsys.nvtx_capture");
  o.capture_range_end = Text(c, "pipeline.nsys.capture_range_end");
  o.cuda_graph_trace = Text(c, "pipeline.nsys.cuda_graph_trace");
  // A workload that uses CUDA graphs (model.cuda_graphs) is traced node by
  // node, so its graph kernels are seen and attributed (docs/analysis.md).
  if (!o.cuda_graph_trace && Flag(c, "model.cuda_graphs", false)) o.cuda_graph_trace = "node";
  return o;
}

NcuOptions ReadNcu(const Node& c) {
  const std::string k = kNcu;
  NcuOptions o;
  o.enable = Flag(c, "pipeline.ncu.enable", false);
  o.gating_nvtx = Flag(c, "pipeline.ncu.gating_nvtx", true);
  o.target_processes = Text(c, k + "target_processes");
  o.replay_mode = Text(c, k + "replay_mode");
  o.set = Text(c, k + "set");
  o.sections = List(At(c, k + "sections"));
  o.metrics = List(At(c, k + "metrics"));
  o.nvtx_include = NvtxExpressions(At(c, k + "nvtx.include"));
  o.nvtx_exclude = NvtxExpressions(At(c, k + "nvtx.exclude"));
  o.kernel_name = Text(c, k + "kernel_name");
  o.kernel_name_base = Text(c, k + "kernel_name_base");
  o.launch_skip = Text(c, k + "launch_skip");
  o.launch_count = Text(c, k + "launch_count");
  o.range_filter = Text(c, k + "range_filter");
  o.cache_control = Text(c, k + "cache_control");
  o.clock_control = Text(c, k + "clock_control");
  o.graph_profiling = Text(c, k + "graph_profiling");
  o.force_overwrite = Flag(c, k + "force_overwrite", true);
  return o;
}

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

Result<ProfileOptions> ReadProfileOptions(const Node& c) {
  ProfileOptions o;
  // In the order a plan checks them: what the whole run needs, then each
  // enabled tool's settings.
  ASSIGN_OR_RETURN(o.ncu.top_kernels, TopKernelCount(c));
  ASSIGN_OR_RETURN(o.step_timeout_s, StepTimeout(c));
  o.trace = Flag(c, "pipeline.trace.enable", false);
  o.cuda_profiler_api = Flag(c, "pipeline.workload.cuda_profiler_api", false);
  const int top = o.ncu.top_kernels;
  o.nsys = ReadNsys(c);
  if (o.nsys.enable) RETURN_IF_ERROR(CheckNsys(c));
  o.ncu = ReadNcu(c);
  o.ncu.top_kernels = top;
  if (o.ncu.enable) RETURN_IF_ERROR(CheckNcuChoices(c));
  RETURN_IF_ERROR(CheckChoice(c, "pipeline.launcher", kLaunchers));
  o.launcher = Text(c, "pipeline.launcher").value_or("auto");
  ASSIGN_OR_RETURN(o.ncu.ranks, NcuRanks(c));
  ASSIGN_OR_RETURN(o.ncu.lockstep, NcuLockstepChoice(c));
  o.ncu.communicator_host = Text(c, "pipeline.ncu.communicator_host");
  return o;
}

bool NcuLockstep(const NcuOptions& ncu) { return ncu.lockstep.value_or(!ncu.ranks || ncu.ranks->size() > 1); }

}  // namespace llmpo::pipeline
