#include "src/pipeline/sweep_report_job.h"

#include <fmt/format.h>

#include <deque>
#include <system_error>

#include "src/core/atomic_file.h"
#include "src/pipeline/manifest.h"
#include "src/report/report_set_json.h"
#include "src/report/sweep_model.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

// The point's status: its run.json's when it has one, else this run's outcome.
report::SweepPointInput PointInput(const SweepReportRequest& request, std::size_t i) {
  const SweepPointPlan& plan = request.points[i];
  const PointOutcome& outcome = request.outcomes[i];
  report::SweepPointInput in;
  in.num = plan.num;
  in.values = plan.values;
  std::error_code ec;
  in.dir = fs::relative(plan.dir, request.sweep_dir, ec).string();
  if (ec || in.dir.empty()) in.dir = plan.dir.string();
  std::string reason;
  const auto status = PointRunStatus(plan.dir, &reason);
  in.status = status ? *status : std::string(ToString(outcome.status));
  in.reason = !reason.empty() ? reason : outcome.reason;
  if (in.status == "ok") in.reason.clear();
  in.exit_code = outcome.exit_code;
  return in;
}

}  // namespace

Result<std::vector<std::string>> WriteSweepReport(const SweepReportRequest& request) {
  std::deque<report::ReportSet> sets;  // stable addresses
  report::SweepInput input;
  input.command = request.command;
  input.keys = request.keys;
  input.pareto = request.pareto;
  input.top_kernels = request.top_kernels;
  for (std::size_t i = 0; i < request.points.size(); ++i) {
    report::SweepPointInput in = PointInput(request, i);
    const fs::path set_file = request.points[i].dir / "report_set.json";
    std::error_code ec;
    if ((in.status == "ok" || in.status == "partial") && fs::is_regular_file(set_file, ec)) {
      auto text = ReadRunFile(set_file);
      auto set = text.ok() ? report::ReadReportSetJson(*text, set_file.string()) : Result<report::ReportSet>(text.error());
      if (set.ok()) {
        sets.push_back(std::move(*set));
        in.set = &sets.back();
      } else {
        in.reason = fmt::format("its report set cannot be read: {}", set.error().message);
      }
    }
    input.points.push_back(std::move(in));
  }
  const report::SweepReport report = report::BuildSweepReport(input);
  RETURN_IF_ERROR(WriteFileAtomically(request.sweep_dir / "sweep.md", report::SweepMarkdown(report)));
  RETURN_IF_ERROR(WriteFileAtomically(request.sweep_dir / "sweep.json", report::SweepJson(report)));
  RETURN_IF_ERROR(WriteFileAtomically(request.sweep_dir / "sweep.html", report::SweepHtml(report)));
  return std::vector<std::string>{"sweep.md", "sweep.json", "sweep.html"};
}

}  // namespace llmpo::pipeline
