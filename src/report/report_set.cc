#include "src/report/report_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "src/report/phases_model.h"

namespace llmpo::report {
namespace {

// Metrics the catalogue does not know were averaged, the safe rule: each is
// named once in Data quality; so are values left out for their unit.
void ReportUnknownMetricRules(KernelsReport& report) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& k : report.kernels) {
    for (const auto& m : k.metrics) {
      if (m.unit_conflicts > 0) {
        report.diagnostics.Add(model::Diag::metric_unit_conflict,
                               fmt::format("kernel '{}', metric '{}': {} value(s) in a unit other than '{}' that "
                                           "cannot be normalised to it; left out of its aggregate",
                                           k.name, m.name, m.unit_conflicts, m.unit));
      }
      if (m.rule_known || !seen.emplace(m.section, m.name).second) continue;
      report.diagnostics.Add(model::Diag::metric_rule_unknown,
                             fmt::format("metric '{}'{}: not in the metric catalogue, so averaged over launches (never "
                                         "summed)",
                                         m.name, m.section.empty() ? "" : fmt::format(" (section '{}')", m.section)));
    }
  }
}

void NoteRepeatedRows(KernelsReport& report) {
  if (report.runtime.repeated_rows > 0) {
    report.diagnostics.Note(fmt::format(
        "{} nsys summary row(s) repeat what an earlier input gave (the same report imported twice?); not added",
        report.runtime.repeated_rows));
  }
  if (report.runtime.repeated_launch_paths > 0) {
    report.diagnostics.Note(fmt::format(
        "{} launch overhead row(s) measure launches an earlier input already gave (same process, thread, device, "
        "API and kernel: a timeline and its run's cuda_kern_exec_sum?); the earlier input's rows are kept",
        report.runtime.repeated_launch_paths));
  }
}

KernelsReport BuildKernels(Collected& c, const ReportOptions& options) {
  KernelsReport report;
  report.sources = c.sources;
  report.diagnostics = std::move(c.diagnostics);
  report.kernels = KernelRows(std::move(c.kernels));
  report.runtime = std::move(c.runtime);
  NoteRepeatedRows(report);
  ReportUnknownMetricRules(report);
  report.gpu_busy = std::move(c.gpu_busy);  // before the analysis: the timeline rules read it
  AnalyzeKernels(report, *options.categorizer);
  return report;
}

// A timeline (a Kineto trace, an nsys export) imported with an ncu page of
// the same program: one kernel table with the timeline's durations and, per
// kernel name, ncu's metrics (kernels_combined.md / .json).
std::optional<KernelsReport> BuildCombined(const KernelsReport& all, const analysis::LaunchPairing* pairing,
                                           const analysis::KernelCategorizer& categorizer) {
  bool timeline = false, ncu = false;
  for (const auto& s : all.sources) {
    if (!s.ok()) continue;
    timeline = timeline || s.family == model::SourceFamily::kTimeline;
    ncu = ncu || s.family == model::SourceFamily::kNcu;
  }
  if (!timeline || !ncu || pairing == nullptr) return std::nullopt;
  KernelsReport combined = all;
  std::string times_from;
  combined.kernels = KernelRows(TimesFromOneSource(all, &times_from));
  // Each row's insight from its own metrics (ncu's, borrowed by name).
  for (KernelRow& row : combined.kernels) row.insight = InsightFor(row, categorizer);
  std::size_t matched = 0;
  for (const auto& k : combined.kernels) matched += k.metrics.empty() ? 0 : 1;
  for (const auto& s : all.sources) {
    if (!s.ok() || s.family != model::SourceFamily::kNcu) continue;
    std::size_t own = 0;
    for (const auto& k : all.kernels) own += k.source == s.path ? 1 : 0;
    combined.source_notes[s.path] = fmt::format(
        "Its {} kernel(s) lend ncu's metrics to the same-named kernels above (kernels.md has its own table).", own);
  }
  if (matched == 0) {
    combined.diagnostics.Add(model::Diag::kernels_combined_no_match,
                             fmt::format("none of the {} kernel name(s) of {} is a kernel name of the ncu input(s); "
                                         "profile the same kernels, or with ncu --kernel-name-base demangled",
                                         combined.kernels.size(), times_from));
  }
  const analysis::PairingResult paired = pairing->Pair(times_from, combined.diagnostics);
  combined.region_kernels = paired.rows;
  combined.diagnostics.Note(fmt::format(
      "kernels_combined: durations from {}; metrics from same-named kernels of the ncu input(s) ({} of {} kernel(s) "
      "matched by name); per region, {} kernel(s) paired with ncu's results launch by launch, {} by name only",
      times_from, matched, combined.kernels.size(), paired.kernels_by_launch, paired.kernels_by_name));
  return combined;
}

std::optional<RegionsReport> BuildRegions(const Collected& c, const KernelsReport& kernels,
                                          const ReportOptions& options) {
  if (c.regions == nullptr || !c.regions->saw_nvtx) return std::nullopt;
  model::Diagnostics merged = kernels.diagnostics;
  merged.Merge(c.region_diagnostics);
  RegionsReport report = BuildRegionsReport(*c.regions, kernels.sources, options.selection, options.aggregate, merged,
                                            options.categorizer);
  for (const auto& unused : c.unused_kernel_patterns) {
    report.notes.push_back(fmt::format("kernel pattern {} matched no kernel", unused));
  }
  LimitRegionFolders(report, options.max_folders);
  return report;
}

// The run the page and the summaries describe: the run folder's, else the
// one given, else one named by its inputs, not by where it is written (the
// same inputs give the same page).
RunContext ContextFor(const ReportSet& set, const ReportOptions& options) {
  if (options.run_folder) {
    RunContext run = *options.run_folder;
    run.files = {"kernels.md", "kernels.json", "stakeholder_summary.md", "report.html"};
    if (set.regions) run.files.push_back(options.regions_subdir + "/report.md");
    return run;
  }
  if (options.html_run) return *options.html_run;
  RunContext run;
  const auto& sources = set.kernels.sources;
  if (!sources.empty()) {
    run.run_name = std::filesystem::path(sources.front().path).filename().string();
    if (sources.size() > 1) run.run_name += fmt::format(" and {} more", sources.size() - 1);
  }
  return run;
}

std::size_t RegionCount(const RegionsReport& r) {
  if (r.aggregate) return r.aggregate->size();
  std::size_t n = 0;
  for (const auto& scope : r.scopes) n += scope.regions.size();
  return n;
}

PageModel BuildPage(const ReportSet& set) {
  PageModel page;
  const auto& kernels = set.kernels.kernels;
  for (std::size_t i = 0; i < kernels.size(); ++i) page.kernel_rows.push_back(i);
  std::stable_sort(page.kernel_rows.begin(), page.kernel_rows.end(),
                   [&](std::size_t a, std::size_t b) { return kernels[a].total_ns > kernels[b].total_ns; });
  if (page.kernel_rows.size() > kHtmlMaxKernelRows) {
    page.kernels_omitted = page.kernel_rows.size() - kHtmlMaxKernelRows;
    page.kernel_rows.resize(kHtmlMaxKernelRows);
  }
  const auto& stages = set.run.stages;
  std::vector<std::size_t> order(stages.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return stages[a].share_pct > stages[b].share_pct; });
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i < kHtmlTopRegions) {
      page.top_stages.push_back(order[i]);
    } else {
      page.other_stages_share_pct += stages[order[i]].share_pct;
    }
  }
  page.region_rows = set.regions ? std::min(RegionCount(*set.regions), kHtmlMaxRegionRows) : 0;
  return page;
}

}  // namespace

GpuBreakdownReport BuildGpuBreakdownReport(model::GpuBreakdown breakdown, std::size_t top_cpu_ops) {
  GpuBreakdownReport report;
  analysis::SortDevicesByRank(breakdown);
  report.ranks = analysis::CompareRanks(breakdown);
  report.top_cpu_ops = analysis::CpuOpsByGpuTime(breakdown);
  report.cpu_ops_with_gpu = report.top_cpu_ops.size();
  if (report.top_cpu_ops.size() > top_cpu_ops) report.top_cpu_ops.resize(top_cpu_ops);
  report.breakdown = std::move(breakdown);
  return report;
}

ReportSet BuildReportSet(Collected collected, const ReportOptions& options) {
  ReportSet set;
  set.top_k = options.top_k;
  set.kernels = BuildKernels(collected, options);
  set.phases = BuildPhases(collected.phases, options.phases, set.kernels, *options.categorizer);
  collected.phases = {};  // one entry per rank and step: freed before the rest is built
  set.combined = BuildCombined(set.kernels, collected.pairing, *options.categorizer);
  if (!collected.gpu_breakdown.devices.empty() || !collected.gpu_breakdown.cpu_ops.empty()) {
    set.gpu_breakdown = BuildGpuBreakdownReport(std::move(collected.gpu_breakdown), options.top_k);
    FindClassDifferences(*set.gpu_breakdown, set.kernels);
  }
  set.regions = BuildRegions(collected, set.kernels, options);
  if (collected.regions != nullptr) {
    analysis::Stragglers stragglers = analysis::FindStragglers(
        *collected.regions, set.gpu_breakdown ? &set.gpu_breakdown->breakdown : nullptr, options.top_k);
    if (options.run_folder) analysis::AddLauncherRanks(stragglers, options.run_folder->launched_ranks);
    if (stragglers.ranks >= 2) set.stragglers = std::move(stragglers);
  }
  set.regions_subdir = options.regions_subdir;
  set.timeline = options.timeline ? options.timeline : std::move(collected.timeline);
  set.trace_json_link = options.trace_json_link;
  set.run_folder = options.run_folder.has_value();
  set.run = BuildRunModel(ContextFor(set, options), set.kernels, set.regions ? &*set.regions : nullptr);
  set.trace = collected.trace;
  set.page = BuildPage(set);
  set.launch_sequences = std::move(collected.launch_sequences);
  return set;
}

}  // namespace llmpo::report
