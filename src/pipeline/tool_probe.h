// What the installed ncu and nsys offer, probed once per run before any
// command is built: their `--version`, and ncu's `--help` (its options and
// replay modes) and `--list-sections`. The command builders leave out what
// the installed version lacks (commands.h), CheckInstalledTools refuses
// what it cannot do before anything runs, and run.json records the probe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/process.h"
#include "src/pipeline/profile_options.h"
#include "src/pipeline/tool_version.h"

namespace llmpo::pipeline {

struct ToolInfo {
  std::string path;          // where it was found on PATH
  std::string version_line;  // the line of `--version` that names the version
  std::optional<ToolVersion> version;
  std::set<std::string> options;   // ncu: every long option `--help` lists ("--config-file", ...)
  bool app_range = false;          // ncu: `--help` lists the app-range replay mode
  std::set<std::string> sections;  // ncu: the section ids `--list-sections` lists
};

// nullopt: not probed or not on PATH; the builders then write the newest grammar.
struct InstalledTools {
  std::optional<ToolInfo> ncu;
  std::optional<ToolInfo> nsys;
};

// Probes the tools that are enabled and on PATH.
InstalledTools ProbeTools(ProcessRunner& runner, bool ncu, bool nsys);

// Parsers of the tools' output (unit-tested on their real text).
std::set<std::string> LongOptions(std::string_view help);
std::set<std::string> SectionIds(std::string_view list_sections);

// The version-dependent choices (true when the tool is unknown: newest grammar).
bool NcuHasOption(const InstalledTools& tools, std::string_view option);
bool NcuOlderThan(const InstalledTools& tools, ToolVersion version);
bool NsysOlderThan(const InstalledTools& tools, ToolVersion version);
// The nsys stats report with kernels per name: gpukernsum before 2023.1.
std::string NsysKernelSumReport(const InstalledTools& tools);
bool NcuKeepsSection(const InstalledTools& tools, const std::string& section);
bool NcuKeepsMetric(const InstalledTools& tools, const NcuOptions& ncu, const std::string& metric);

// What the options ask that the installed ncu cannot do (app-range replay,
// --range-filter, --graph-profiling), each naming the version that can; and
// warnings for what the builders leave out (sections it does not have,
// metrics its range replay does not support).
std::vector<Error> CheckInstalledTools(const ProfileOptions& options, const InstalledTools& tools);
std::vector<std::string> AdaptationNotes(const ProfileOptions& options, const InstalledTools& tools);

// run.json's "tools": per probed tool its path, version and version line.
nlohmann::ordered_json ToolsJson(const InstalledTools& tools);

}  // namespace llmpo::pipeline
