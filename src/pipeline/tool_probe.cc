#include "src/pipeline/tool_probe.h"

#include <fmt/format.h>
#include <re2/re2.h>
#include <unistd.h>

#include <filesystem>

#include "src/core/atomic_file.h"
#include "src/pipeline/environment.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
namespace {

// Where the first version arrived whose grammar the builders otherwise use
// (approximate: the documentation of that release is the first to show it).
constexpr ToolVersion kNcuAppRange{2023, 1};
constexpr ToolVersion kNcuRangeReplaySass{2023, 1};
constexpr ToolVersion kNsysNewReportNames{2023, 1};

constexpr const char* kSassPrefix = "sm__sass_thread_inst_executed_op_";

// Runs argv and returns what it printed (stdout then stderr); "" when it could not run.
std::string Output(ProcessRunner& runner, const std::vector<std::string>& argv) {
  const fs::path out = fs::temp_directory_path() / fmt::format("llmpo-probe-{}.out", ::getpid());
  StepSpec spec;
  spec.argv = argv;
  spec.stdout_file = out;
  spec.stderr_file = out.string() + ".err";
  spec.timeout_s = 60;
  auto ran = runner.Run(spec);
  std::string text;
  for (const fs::path& file : {out, fs::path(out.string() + ".err")}) {
    if (auto content = ReadWholeFile(file); ran.ok() && content.ok()) text += *content;
    std::error_code ec;
    fs::remove(file, ec);
  }
  return text;
}

std::string VersionLineOf(std::string_view text) {
  std::string found;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (ParseToolVersion(line)) found = std::string(line);
    start = end + 1;
  }
  return found;
}

std::optional<ToolInfo> Probe(ProcessRunner& runner, const std::string& tool) {
  auto path = FindOnPath(tool);
  if (!path) return std::nullopt;
  ToolInfo info;
  info.path = path->string();
  info.version_line = VersionLineOf(Output(runner, {tool, "--version"}));
  info.version = ParseToolVersion(info.version_line);
  if (tool == "ncu") {
    const std::string help = Output(runner, {tool, "--help"});
    info.options = LongOptions(help);
    info.app_range = help.find("app-range") != std::string::npos;
    info.sections = SectionIds(Output(runner, {tool, "--list-sections"}));
  }
  return info;
}

bool Older(const std::optional<ToolInfo>& tool, ToolVersion than) {
  return tool && tool->version && *tool->version < than;
}

std::string Installed(const ToolInfo& tool) {
  return tool.version ? "ncu " + tool.version->Text() : "the installed ncu (" + tool.path + ")";
}

Error Refusal(const ToolInfo& ncu, const std::string& what, const std::string& key, ToolVersion needed,
              const std::string& instead) {
  return MakeError(ExitStatus::kToolMissing,
                   fmt::format("{} cannot do {} ({}); Nsight Compute {} or newer can", Installed(ncu), what, key,
                               needed.Text()))
      .WithNote(fmt::format("fix: install Nsight Compute {} or newer, or set {}", needed.Text(), instead));
}

}  // namespace

// Calls `each` with every line of `text`.
template <typename F>
void ForEachLine(std::string_view text, F each) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    each(text.substr(start, end - start));
    start = end + 1;
  }
}

std::set<std::string> LongOptions(std::string_view help) {
  // "  --nvtx   Enable ...", "  -k [ --kernel-name ] arg   ..."
  static const RE2 kOption(R"(^\s+(?:-\w \[ )?(--[a-z][a-z0-9-]*))");
  std::set<std::string> options;
  ForEachLine(help, [&](std::string_view line) {
    std::string option;
    if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), kOption, &option)) options.insert(option);
  });
  return options;
}

std::set<std::string> SectionIds(std::string_view list_sections) {
  // "SpeedOfLight    GPU Speed Of Light Throughput   yes   ...": the id starts the line.
  static const RE2 kRow(R"(^([A-Za-z][A-Za-z0-9_]*)\s+\S)");
  std::set<std::string> ids;
  ForEachLine(list_sections, [&](std::string_view line) {
    std::string id;
    if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), kRow, &id) && id != "Identifier") {
      ids.insert(id);
    }
  });
  return ids;
}

InstalledTools ProbeTools(ProcessRunner& runner, bool ncu, bool nsys) {
  InstalledTools tools;
  if (ncu) tools.ncu = Probe(runner, "ncu");
  if (nsys) tools.nsys = Probe(runner, "nsys");
  return tools;
}

bool NcuHasOption(const InstalledTools& tools, std::string_view option) {
  return !tools.ncu || tools.ncu->options.empty() || tools.ncu->options.count(std::string(option)) > 0;
}

bool NcuOlderThan(const InstalledTools& tools, ToolVersion version) { return Older(tools.ncu, version); }
bool NsysOlderThan(const InstalledTools& tools, ToolVersion version) { return Older(tools.nsys, version); }

std::string NsysKernelSumReport(const InstalledTools& tools) {
  return NsysOlderThan(tools, kNsysNewReportNames) ? "gpukernsum" : "cuda_gpu_kern_sum";
}

bool NcuKeepsSection(const InstalledTools& tools, const std::string& section) {
  return !tools.ncu || tools.ncu->sections.empty() || tools.ncu->sections.count(section) > 0;
}

bool NcuKeepsMetric(const InstalledTools& tools, const NcuOptions& o, const std::string& metric) {
  const bool range = o.replay_mode && (*o.replay_mode == "range" || *o.replay_mode == "app-range");
  return !(range && metric.starts_with(kSassPrefix) && NcuOlderThan(tools, kNcuRangeReplaySass));
}

std::vector<Error> CheckInstalledTools(const ProfileOptions& o, const InstalledTools& tools) {
  std::vector<Error> refused;
  if (!o.ncu.enable || !tools.ncu) return refused;
  const ToolInfo& ncu = *tools.ncu;
  const std::string key = "pipeline.ncu.ncu_cli.";
  if (o.ncu.replay_mode == "app-range" && !ncu.app_range) {
    refused.push_back(Refusal(ncu, "application-range replay", key + "replay_mode=app-range", kNcuAppRange,
                              key + "replay_mode=range (or kernel)"));
  }
  if (o.ncu.range_filter && !NcuHasOption(tools, "--range-filter")) {
    refused.push_back(Refusal(ncu, "--range-filter", key + "range_filter", kNcuAppRange, key + "range_filter=null"));
  }
  if (o.ncu.graph_profiling && !NcuHasOption(tools, "--graph-profiling")) {
    refused.push_back(
        Refusal(ncu, "--graph-profiling", key + "graph_profiling", kNcuAppRange, key + "graph_profiling=null"));
  }
  if (o.ncu.lockstep.value_or(false) && !NcuHasOption(tools, "--communicator")) {
    refused.push_back(MakeError(ExitStatus::kToolMissing,
                                fmt::format("{} has no --communicator option (ncu --help does not list it), which "
                                            "pipeline.ncu.lockstep=true needs",
                                            Installed(ncu)))
                          .WithNote("fix: install a newer Nsight Compute, or profile one rank "
                                    "(pipeline.ncu.ranks=[0], pipeline.ncu.lockstep=auto)"));
  }
  return refused;
}

std::vector<std::string> AdaptationNotes(const ProfileOptions& o, const InstalledTools& tools) {
  std::vector<std::string> notes;
  if (!o.ncu.enable || !tools.ncu) return notes;
  for (const auto& s : o.ncu.sections) {
    if (!NcuKeepsSection(tools, s)) {
      notes.push_back(fmt::format("section {} left out: {} does not list it (ncu --list-sections)", s,
                                  Installed(*tools.ncu)));
    }
  }
  if (!o.ncu.lockstep && NcuLockstep(o.ncu) && !NcuHasOption(tools, "--communicator")) {
    notes.push_back(fmt::format("lockstep left out: {} has no --communicator; under a launcher the profiled ranks "
                                "run without it, and NCCL collectives may hang (pipeline.ncu.ranks=[0] avoids it)",
                                Installed(*tools.ncu)));
  }
  for (const auto& m : o.ncu.metrics) {
    if (!NcuKeepsMetric(tools, o.ncu, m)) {
      notes.push_back(fmt::format("metric {} left out: {} does not support it in range replay (Nsight Compute {} does)",
                                  m, Installed(*tools.ncu), kNcuRangeReplaySass.Text()));
    }
  }
  return notes;
}

Json ToolsJson(const InstalledTools& tools) {
  Json out = Json::object();
  for (const auto& [name, info] : {std::pair{"ncu", &tools.ncu}, std::pair{"nsys", &tools.nsys}}) {
    if (!*info) continue;
    const ToolInfo& t = **info;
    out[name] = {{"path", t.path},
                 {"version", t.version ? Json(t.version->Text()) : Json(nullptr)},
                 {"version_line", t.version_line}};
  }
  return out;
}

}  // namespace llmpo::pipeline
