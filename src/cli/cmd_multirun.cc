#include "src/cli/cmd_multirun.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <set>

#include "src/cli/diagnostics.h"
#include "src/config/node_path.h"
#include "src/config/repository.h"
#include "src/config/scalar.h"
#include "src/config/sweep.h"
#include "src/config/yaml_io.h"
#include "src/core/version.h"
#include "src/pipeline/sweep_job.h"
#include "src/pipeline/sweep_report_job.h"

namespace llmpo::cli {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kAskAbove = 1000;      // points: more need --yes (or a yes at the terminal)
constexpr std::size_t kMaxPoints = 100000;   // points: more are refused

struct Point {
  pipeline::SweepPointPlan plan;
  config::Composition composed;
};

std::vector<fs::path> SearchPath(const ConfigArgs& args) {
  std::vector<fs::path> path;
  if (!args.config_dir.empty()) path.emplace_back(args.config_dir);
  path.push_back(config::BuiltinConfigDir());
  return path;
}

config::GroupOptionsFn GroupOptions(const ConfigArgs& args) {
  auto repo = std::make_shared<config::Repository>(SearchPath(args));
  return [repo](const std::string& key) -> std::optional<std::vector<std::string>> {
    if (!repo->IsGroup(key)) return std::nullopt;
    return repo->Options(key);
  };
}

std::string Text(const config::Node* n) { return n == nullptr || n->is_null() ? "" : config::ScalarToText(*n); }

Status CheckSize(std::size_t count, const SweepArgs& sweep, bool only_print) {
  if (count > kMaxPoints) {
    return MakeError(ExitStatus::kUsage, fmt::format("the sweep has {} points, more than {}", count, kMaxPoints))
        .WithNote("split it into several sweeps");
  }
  if (count <= kAskAbove || sweep.yes || only_print) return OkStatus();
  if (isatty(STDIN_FILENO) != 0 && isatty(STDERR_FILENO) != 0) {
    std::cerr << fmt::format("{}: the sweep has {} points, run one after another; go on? [y/N] ", kToolName, count);
    std::string answer;
    std::getline(std::cin, answer);
    if (answer == "y" || answer == "yes") return OkStatus();
  }
  return MakeError(ExitStatus::kUsage, fmt::format("the sweep has {} points (more than {})", count, kAskAbove))
      .WithNote("add --yes to run them all; --dry-run lists them");
}

std::vector<std::string> SweptOverrides(const config::SweepPlan& plan, std::size_t i) {
  const std::vector<std::string> all = plan.PointOverrides(i);
  return {all.end() - static_cast<std::ptrdiff_t>(plan.axes.size()), all.end()};
}

// Composes point `i`: the plan's overrides and hydra.job.num.
Result<Point> ComposePoint(const ConfigArgs& args, const config::SweepPlan& plan, std::size_t i) {
  ConfigArgs one = args;
  one.multirun = false;
  one.overrides = plan.PointOverrides(i);
  one.overrides.push_back(fmt::format("hydra.job.num={}", i));
  auto composed = ComposeFromArgs(one);
  if (!composed.ok()) {
    return std::move(composed).error().WithNote(
        fmt::format("in sweep point {} ({})", i, fmt::join(SweptOverrides(plan, i), " ")));
  }
  Point p;
  p.plan.num = i;
  p.plan.values = plan.PointValues(i);
  p.plan.overrides = plan.PointOverrides(i);
  p.composed = std::move(*composed);
  return p;
}

// hydra.sweep.dir (point 0's) and each point's hydra.sweep.subdir under it.
Result<fs::path> PlaceFolders(std::vector<Point>& points) {
  const config::Node& first = points.front().composed.config;
  const std::string dir = Text(config::FindPath(first, config::SplitKey("hydra.sweep.dir")));
  if (dir.empty()) return MakeError(ExitStatus::kUsage, "hydra.sweep.dir must be a non-empty path");
  std::set<std::string> seen;
  for (auto& p : points) {
    const std::string sub = Text(config::FindPath(p.composed.config, config::SplitKey("hydra.sweep.subdir")));
    const fs::path rel(sub);
    if (sub.empty() || rel.is_absolute() || sub.find("..") != std::string::npos) {
      return MakeError(ExitStatus::kUsage, fmt::format("hydra.sweep.subdir of point {} is '{}'", p.plan.num, sub))
          .WithNote("it must be a relative path inside the sweep folder (default ${hydra.job.num})");
    }
    if (!seen.insert(rel.lexically_normal().string()).second) {
      return MakeError(ExitStatus::kUsage, fmt::format("two points share the folder '{}' (hydra.sweep.subdir)", sub))
          .WithNote("make hydra.sweep.subdir differ per point, e.g. include ${hydra.job.num}");
    }
    p.plan.dir = fs::path(dir) / rel;
  }
  return fs::path(dir);
}

int PrintPoints(const std::string& command, const ConfigArgs& args, const std::vector<Point>& points,
                const fs::path& dir) {
  Out() << fmt::format("# {} -m: {} points, run one after another\n# sweep folder: {}\n", command, points.size(),
                       dir.string());
  for (const auto& p : points) {
    Out() << fmt::format("# point {}: {} -> {}\n", p.plan.num, fmt::join(p.plan.overrides, " "), p.plan.dir.string());
    if (args.cfg.empty()) continue;
    const config::Node* node = &p.composed.config;
    if (args.cfg == "hydra") node = config::FindPath(p.composed.config, config::SplitKey("hydra"));
    std::cout << (node != nullptr ? config::EmitYaml(*node) : std::string("{}\n"));
  }
  return 0;
}

config::Node MultirunYaml(const std::string& command, const ConfigArgs& args, const Point& first,
                          const std::vector<std::string>& workload_argv) {
  config::Node doc = first.composed.config;
  config::Node& hydra = doc["hydra"];
  hydra["mode"] = "MULTIRUN";
  hydra["overrides"]["task"] = args.overrides;
  hydra["llmpo_sweep"] = config::Node{{"command", command},
                                      {"overrides", args.overrides},
                                      {"workload_argv", workload_argv},
                                      {"config_name", args.config_name},
                                      {"config_dir", args.config_dir}};
  return doc;
}

std::vector<std::string> ChildPrefix(const std::string& command, const ConfigArgs& args) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> argv = {self.string(), command};
  if (!args.config_dir.empty()) argv.push_back("--config-dir=" + fs::absolute(args.config_dir, ec).string());
  argv.push_back("--config-name=" + args.config_name);
  return argv;
}

void Observe(std::size_t total, const pipeline::SweepPointPlan& p, const pipeline::PointOutcome* done) {
  if (done == nullptr) {
    Out() << fmt::format("point {}/{} ({}): running, run folder {}\n", p.num + 1, total, fmt::join(p.values, ", "),
                         p.dir.string());
  } else {
    Out() << fmt::format("point {}/{}: {}{}\n", p.num + 1, total, pipeline::ToString(done->status),
                         done->reason.empty() ? "" : ": " + done->reason);
  }
}

std::vector<std::string> ParetoSetting(const config::Node& config, std::size_t* top) {
  std::vector<std::string> pareto;
  if (const auto* n = config::FindPath(config, config::SplitKey("sweep.pareto")); n && n->is_array()) {
    for (const auto& v : *n) pareto.push_back(config::ScalarToText(v));
  }
  if (const auto* n = config::FindPath(config, config::SplitKey("sweep.top_kernels")); n && n->is_number_unsigned()) {
    *top = n->get<std::size_t>();
  }
  return pareto;
}

int Finish(const pipeline::SweepOutcome& outcome, std::size_t total, const fs::path& dir) {
  const std::size_t ok = static_cast<std::size_t>(std::count_if(
      outcome.points.begin(), outcome.points.end(), [](const auto& p) {
        return p.status == pipeline::PointStatus::kOk || p.status == pipeline::PointStatus::kSkippedComplete;
      }));
  Out() << fmt::format("sweep folder: {}\npoints: {} complete ({} skipped as complete before), {} failed, {} not run\n",
                       dir.string(), ok, outcome.skipped, outcome.failed, total - ok - outcome.failed);
  if (outcome.interrupted) {
    return ReportError(MakeError(ExitStatus::kInterrupted, "sweep interrupted; the points done are kept")
                           .WithNote("run the same command again (or with --resume) to run the rest"));
  }
  if (outcome.failed > 0) {
    return ReportError(MakeError(ok > 0 ? ExitStatus::kPartial : ExitStatus::kToolFailed,
                                 fmt::format("{} of {} sweep points failed", outcome.failed, total))
                           .WithNote(fmt::format("their output is in {}/logs/; sweep.md lists why", dir.string())));
  }
  return 0;
}

}  // namespace

void AddSweepOptions(CLI::App& app, SweepArgs& args) {
  app.add_flag("--resume", args.resume,
               "-m: go on with the sweep in hydra.sweep.dir, skipping its complete points (the same command does too)");
  app.add_flag("--yes", args.yes, "-m: run a sweep of more than 1000 points without asking");
}

int RunMultirun(const std::string& command, const ConfigArgs& args, const SweepArgs& sweep, bool dry_run,
                const std::vector<std::string>& workload_argv, const Invocation& inv) {
  (void)inv;
  auto plan = config::PlanSweep(args.overrides, GroupOptions(args));
  if (!plan.ok()) return ReportError(plan.error());
  const std::size_t count = plan->PointCount();
  const bool only_print = dry_run || !args.cfg.empty() || args.info;
  if (auto s = CheckSize(count, sweep, only_print); !s.ok()) return ReportError(s.error());
  std::vector<Point> points;
  for (std::size_t i = 0; i < count; ++i) {
    auto p = ComposePoint(args, *plan, i);
    if (!p.ok()) return ReportError(p.error());
    if (!workload_argv.empty()) p->composed.config["pipeline"]["workload"]["argv"] = workload_argv;
    points.push_back(std::move(*p));
  }
  if (args.info) return AnswerHydraQuery(args, points.front().composed).value_or(0);
  auto dir = PlaceFolders(points);
  if (!dir.ok()) return ReportError(dir.error());
  if (dry_run || !args.cfg.empty()) return PrintPoints(command, args, points, *dir);

  pipeline::SweepRequest request;
  request.command = command;
  for (const auto& axis : plan->axes) request.keys.push_back(axis.key.substr(axis.key.find_first_not_of("+")));
  for (const auto& p : points) request.points.push_back(p.plan);
  request.sweep_dir = *dir;
  request.multirun = MultirunYaml(command, args, points.front(), workload_argv);
  request.child_prefix = ChildPrefix(command, args);
  request.workload_argv = workload_argv;
  request.resume = sweep.resume;
  auto outcome = pipeline::RunSweep(request, [&](const auto& p, const auto* done) { Observe(count, p, done); });
  if (!outcome.ok()) return ReportError(outcome.error());

  pipeline::SweepReportRequest report{command, request.keys, request.points, outcome->points, *dir, {}, 5};
  report.pareto = ParetoSetting(points.front().composed.config, &report.top_kernels);
  auto written = pipeline::WriteSweepReport(report);
  if (!written.ok()) return ReportError(written.error());
  Out() << fmt::format("sweep report: {}\n", fmt::join(*written, " "));
  return Finish(*outcome, count, *dir);
}

}  // namespace llmpo::cli
