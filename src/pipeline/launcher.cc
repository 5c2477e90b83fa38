#include "src/pipeline/launcher.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "src/pipeline/environment.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

using Argv = std::vector<std::string>;

// Options that take no value. Every other option takes one (the next
// argument, unless written NAME=VALUE), which is each launcher's common case.
constexpr std::array<std::string_view, 7> kTorchrunFlags = {"standalone", "no_python", "no-python", "m",
                                                            "module",     "run_path",  "run-path"};
// Open MPI (4.x) and MPICH (hydra) flags, compared without their leading dashes
// (both accept -name and --name).
constexpr std::array<std::string_view, 45> kMpirunFlags = {
    "allow-run-as-root", "oversubscribe",     "nooversubscribe", "no-oversubscribe", "tag-output",
    "timestamp-output",  "report-bindings",   "display-map",     "display-devel-map", "display-allocation",
    "do-not-resolve",    "merge-stderr-to-stdout", "noprefix",   "use-hwthread-cpus", "nolocal",
    "q",                 "quiet",             "v",               "verbose",          "debug",
    "debug-daemons",     "show-progress",     "continuous",      "enable-recovery",  "disable-recovery",
    "xml",               "bind-to-core",      "bind-to-socket",  "bynode",           "byslot",
    "bycore",            "bysocket",          "report-pid",      "report-uri",       "l",
    "prepend-rank",      "ordered-output",    "genvall",         "genvnone",         "info",
    "enable-x",          "disable-x",         "h",               "help",             "V"};
// Options that take two values (NAME VALUE).
constexpr std::array<std::string_view, 4> kMpirunPairs = {"mca", "gmca", "genv", "env"};
constexpr std::array<std::string_view, 34> kSrunFlags = {
    "O",           "overcommit", "l",        "label",        "u",          "unbuffered",  "exclusive",
    "v",           "verbose",    "Q",        "quiet",        "K",          "kill-on-bad-exit", "pty",
    "X",           "disable-status", "Z",    "no-allocate",  "s",          "oversubscribe", "H",
    "hold",        "exact",      "overlap",  "test-only",    "contiguous", "E",           "preserve-env",
    "k",           "no-kill",    "spread-job", "use-min-nodes", "I",       "immediate"};

template <std::size_t N>
bool In(const std::array<std::string_view, N>& set, std::string_view name) {
  return std::find(set.begin(), set.end(), name) != set.end();
}

std::string_view Bare(std::string_view option) {
  while (!option.empty() && option.front() == '-') option.remove_prefix(1);
  return option;
}

// How many arguments the option at argv[i] spans (itself included).
std::size_t OptionSpan(LauncherKind kind, std::string_view arg) {
  if (arg.find('=') != std::string_view::npos) return 1;  // --name=value
  const std::string_view name = Bare(arg);
  switch (kind) {
    case LauncherKind::kTorchrun:
      return In(kTorchrunFlags, name) ? 1 : 2;
    case LauncherKind::kMpirun:
      return In(kMpirunFlags, name) ? 1 : In(kMpirunPairs, name) ? 3 : 2;
    case LauncherKind::kSrun:
      // -n4, -lu: a short option with its value, or flags run together
      if (!arg.starts_with("--") && arg.size() > 2) return 1;
      return In(kSrunFlags, name) ? 1 : 2;
  }
  return 1;
}

// The python that runs torchrun's script: torchrun's own (its #! line),
// else python3 on PATH.
std::string TorchrunPython(const std::string& torchrun) {
  fs::path path = torchrun;
  if (torchrun.find('/') == std::string::npos) {
    if (auto found = FindOnPath(torchrun)) path = *found;
  }
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || !line.starts_with("#!")) return "python3";
  line = line.substr(2);
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return "python3";
  line = line.substr(first);
  if (line.starts_with("/usr/bin/env ")) line = line.substr(13);
  return line.substr(0, line.find_first_of(" \t\r"));
}

struct Layer {
  LauncherKind kind;
  std::size_t name_end;  // after the launcher's name (python -m torch.distributed.run is three words)
};

std::optional<Layer> LayerOf(const Argv& argv, const std::string& setting) {
  if (argv.empty()) return std::nullopt;
  if (setting == "torchrun") return Layer{LauncherKind::kTorchrun, 1};
  if (setting == "mpirun") return Layer{LauncherKind::kMpirun, 1};
  if (setting == "srun") return Layer{LauncherKind::kSrun, 1};
  const std::string base = fs::path(argv[0]).filename().string();
  if (base.starts_with("python") && argv.size() > 2 && argv[1] == "-m" &&
      (argv[2] == "torch.distributed.run" || argv[2] == "torch.distributed.launch")) {
    return Layer{LauncherKind::kTorchrun, 3};
  }
  if (auto kind = LauncherOf(base)) return Layer{*kind, 1};
  return std::nullopt;
}

Error NoProgram(const Argv& argv, LauncherKind kind) {
  return MakeError(ExitStatus::kUsage,
                   fmt::format("the {} command '{}' names no program after its options", ToString(kind),
                               fmt::format("{}", fmt::join(argv, " "))))
      .WithNote(fmt::format(
          "the profiler goes between the launcher and each rank's program; an option of {} that takes no value "
          "may have been taken as taking one",
          ToString(kind)))
      .WithNote("fix: write options as --name=value, or set pipeline.launcher=none to profile the launcher's whole "
                "process tree as one (one node only)");
}

// torchrun starts `python -u SCRIPT` unless --no_python: the profiler must
// go before that python, so the split adds --no_python and names it.
void SpellOutPython(LaunchSplit& split, const Argv& argv, const Layer& layer) {
  bool no_python = false, module = false;
  Argv kept(split.launcher.begin(), split.launcher.begin() + static_cast<std::ptrdiff_t>(layer.name_end));
  kept.push_back("--no_python");
  for (std::size_t i = layer.name_end; i < split.launcher.size(); ++i) {
    const std::string& a = split.launcher[i];
    no_python = no_python || Bare(a) == "no_python" || Bare(a) == "no-python";
    if (a == "-m" || a == "--module") {
      module = true;
      continue;
    }
    kept.push_back(a);
  }
  if (no_python) return;
  const std::string python = layer.name_end == 3 ? argv[0] : TorchrunPython(argv[0]);
  split.launcher = std::move(kept);
  Argv program = {python, "-u"};
  if (module) program.push_back("-m");
  program.insert(program.end(), split.program.begin(), split.program.end());
  split.program = std::move(program);
  split.note = fmt::format("torchrun runs each rank as `{} -u ...` with --no_python, so the profiler comes first",
                           python);
}

}  // namespace

std::string ToString(LauncherKind kind) {
  switch (kind) {
    case LauncherKind::kTorchrun:
      return "torchrun";
    case LauncherKind::kMpirun:
      return "mpirun";
    case LauncherKind::kSrun:
      return "srun";
  }
  return "?";
}

std::optional<LauncherKind> LauncherOf(const std::string& program) {
  const std::string base = fs::path(program).filename().string();
  if (base == "torchrun") return LauncherKind::kTorchrun;
  if (base == "srun") return LauncherKind::kSrun;
  for (std::string_view mpi : {"mpirun", "mpiexec", "orterun", "prterun"}) {
    if (base == mpi || (base.starts_with(std::string(mpi) + ".") && base.size() > mpi.size() + 1)) {
      return LauncherKind::kMpirun;
    }
  }
  return std::nullopt;
}

Result<std::optional<LaunchSplit>> SplitLauncher(const Argv& argv, const std::string& setting) {
  if (setting == "none") return std::optional<LaunchSplit>();
  const auto layer = LayerOf(argv, setting == "auto" ? "" : setting);
  if (!layer) return std::optional<LaunchSplit>();
  std::size_t i = layer->name_end;
  while (i < argv.size() && argv[i].size() > 1 && argv[i][0] == '-') {
    if (argv[i] == "--") {  // an explicit end of the launcher's options
      ++i;
      break;
    }
    i += OptionSpan(layer->kind, argv[i]);
  }
  if (i >= argv.size()) return NoProgram(argv, layer->kind);
  LaunchSplit split;
  split.chain = {layer->kind};
  split.launcher.assign(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(i));
  split.program.assign(argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
  if (layer->kind == LauncherKind::kTorchrun) SpellOutPython(split, argv, *layer);
  // srun ... torchrun ...: the ranks are the inner launcher's.
  ASSIGN_OR_RETURN(std::optional<LaunchSplit> inner, SplitLauncher(split.program, "auto"));
  if (inner) {
    split.chain.insert(split.chain.end(), inner->chain.begin(), inner->chain.end());
    split.launcher.insert(split.launcher.end(), inner->launcher.begin(), inner->launcher.end());
    split.program = std::move(inner->program);
    if (!inner->note.empty()) split.note = inner->note;
  }
  return std::optional<LaunchSplit>(std::move(split));
}

}  // namespace llmpo::pipeline
