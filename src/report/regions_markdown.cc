#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "src/report/md_table.h"
#include "src/report/regions_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using analysis::Region;

std::string_view Meaning(std::string_view of) {
  if (of == "cpu_ms") return "CPU range time";
  if (of == "projected_ms") return "GPU projection";
  return "GPU kernel time";
}

std::string Instances(const Region& r) {
  std::string of;
  const auto stats = r.Instances(&of);
  if (!stats) return "not recorded by this input";
  if (!stats->has_extremes)
    return fmt::format("{} ({} per instance: mean {} ms)", stats->count, Meaning(of),
                       MsText(stats->total_ns / stats->count));
  return fmt::format("{} ({} per instance: min {} / mean {} / max {} ms)", stats->count, Meaning(of),
                     MsText(stats->min_ns), MsText(stats->total_ns / stats->count), MsText(stats->max_ns));
}

// The known quantities of a region, for one line of the tree.
std::string Quantities(const Region& r) {
  std::string out;
  auto add = [&out](std::string text) { out += (out.empty() ? "" : ", ") + text; };
  if (r.total_ns) add(fmt::format("GPU kernels {} ms (excl. {})", MsText(r.total_ns), MsText(r.exclusive_ns)));
  if (r.gpu_ops_ns && *r.gpu_ops_ns > 0) add(fmt::format("copies {} ms", MsText(r.gpu_ops_ns)));
  if (r.projected_ns) add(fmt::format("GPU projection {} ms", MsText(r.projected_ns)));
  if (r.cpu_ns) add(fmt::format("CPU {} ms", MsText(r.cpu_ns)));
  return out;
}

void Tree(std::string& out, const std::vector<RegionEntry>& entries) {
  out += "## Region tree\n\n```\n";
  for (const auto& e : entries) {
    const Region& r = *e.region;
    out += fmt::format("{}{}  {}, {} launches\n", std::string(2 * r.depth, ' '), OneLine(r.label), Quantities(r),
                       CountText(r.KnownLaunches()));
  }
  out += "```\n";
}

void QuantityLines(std::string& out, const Region& r) {
  if (r.total_ns) {
    out += fmt::format("- GPU kernel time: {} ms{}; exclusive: {} ms\n", MsText(r.total_ns),
                       r.derived_total ? " (sum of its children; not measured itself)" : "", MsText(r.exclusive_ns));
  } else {
    out += "- GPU kernel time: n/a (no input records kernel durations for this region)\n";
  }
  if (r.gpu_ops_ns && r.gpu_ops > 0) {
    out += fmt::format("- GPU copy and memset time: {} ms ({} operations); exclusive: {} ms\n", MsText(r.gpu_ops_ns),
                       r.gpu_ops, MsText(r.gpu_ops_exclusive_ns));
  }
  if (r.projected_ns) {
    out += fmt::format("- GPU projection (first start to last end of its GPU work, per instance): {} ms\n",
                       MsText(r.projected_ns));
  }
  if (r.cpu_ns) {
    // A flat summary (nvtx_sum) records no nesting: its exclusive time is not known.
    out += fmt::format("- CPU range time: {} ms; exclusive: {}\n", MsText(r.cpu_ns),
                       r.cpu_exclusive_ns ? MsText(r.cpu_exclusive_ns) + " ms" : "n/a (the input records no nesting)");
  }
  for (const auto& a : r.also_measured) {
    out += fmt::format("- Also measured, not used: {} = {} ms by `{}`\n", analysis::JsonKey(a.quantity), MsText(a.ns),
                       a.input);
  }
}

// Category split, GPU busy share and ncu's rules (docs/analysis.md).
void AnalysisLines(std::string& out, const RegionEntry& e) {
  if (!e.category_ns.empty()) {
    std::string parts;
    for (const auto& [category, ns] : e.category_ns) {
      parts += fmt::format("{}{} {} ms", parts.empty() ? "" : ", ", category, MsText(ns));
    }
    out += fmt::format("- Kernel time by category: {}\n", parts);
  }
  out += e.busy_pct ? fmt::format("- GPU busy: {:.1f} % of the GPU projection\n", *e.busy_pct)
                    : fmt::format("- GPU busy: n/a ({})\n", e.busy_missing);
  std::string rules;
  for (std::size_t i = 0; i < e.findings.size() && i < 5; ++i) {
    const auto& f = e.findings[i];
    rules += fmt::format("{}{} ({} kernels, {})", rules.empty() ? "" : ", ", f.rule, f.kernels,
                         f.saving_pct ? fmt::format("{:.2g} % of the region's kernel time", *f.saving_pct) : "n/a");
  }
  if (!rules.empty()) out += fmt::format("- ncu rules with a global speedup: {}\n", rules);
  std::string roofs;
  for (const auto& r : e.roofline) {
    if (r.level != "DRAM") continue;
    roofs += fmt::format("{}{} {} % of roof, intensity {} FLOP/byte ({} kernels)", roofs.empty() ? "" : "; ",
                         r.precision, r.pct_of_roof ? fmt::format("{:.3g}", *r.pct_of_roof) : "n/a",
                         r.intensity ? fmt::format("{:.3g}", *r.intensity) : "n/a", r.kernels);
  }
  if (!roofs.empty()) out += fmt::format("- Roofline at DRAM, weighted by kernel time: {}\n", roofs);
}

void RegionSection(std::string& out, const RegionEntry& e) {
  const Region& r = *e.region;
  out += fmt::format("\n## {}\n\n", MdCell(r.label, 200));
  out += fmt::format("- Path: {}\n- Kind: {}; depth {}; parent: {}\n", MdCell(JoinPath(r.path), 300),
                     analysis::ToString(r.kind), r.depth, e.parent_label ? MdCell(*e.parent_label) : "none");
  QuantityLines(out, r);
  if (r.measured.count > 0 && r.kind != analysis::RegionKind::kSummary) {
    out += fmt::format("- Range-replay results: {} (whole-range measurements)\n", r.measured.count);
  }
  out += fmt::format("- Kernel launches: {}{}\n- Instances: {}\n", CountText(r.KnownLaunches()),
                     r.excluded ? fmt::format(" ({} left out by the kernel filter)", r.excluded) : "", Instances(r));
  if (!r.inputs.empty()) {
    std::string inputs;
    for (const auto& i : r.inputs) inputs += (inputs.empty() ? "`" : ", `") + i + "`";
    out += fmt::format("- From: {}\n", inputs);
  }
  if (!e.folder.empty()) out += fmt::format("- Folder: `{}/`\n", e.folder);
  AnalysisLines(out, e);
  if (!r.kernels.empty()) {
    out += "\n";
    KernelTableMd(out, r.kernels, e.kernels_by_time, e.metric_columns);
  } else if (r.launches == 0 && r.measured.count == 0 && r.total_ns) {
    out += "\nNo kernel of this region passed the kernel selection.\n";
  }
  if (!r.range_metrics.metrics.empty()) {
    // Range replay measures the whole range as one result: its metrics, over the instances.
    out += "\nRange-replay metrics (the whole range measured as one result per instance):\n\n";
    const std::map<std::string, analysis::KernelAggregate> range{{"(whole range)", r.range_metrics}};
    KernelTableMd(out, range, {"(whole range)"}, e.range_metric_columns);
  }
}

// "NCU" when every input is an ncu output (the seeds' heading, which their
// checks look for); the regions of nsys exports and our traces are NVTX's.
std::string_view Title(const RegionsReport& report) {
  const bool all_ncu =
      !report.sources.empty() && std::all_of(report.sources.begin(), report.sources.end(),
                                             [](const SourceInfo& s) { return s.family == model::SourceFamily::kNcu; });
  return all_ncu ? "NCU Region Reports" : "NVTX Region Reports";
}

}  // namespace

// Written section by section (a report can hold thousands of regions).
void WriteRegionsMarkdown(const RegionsReport& report, std::ostream& stream) {
  std::string out = fmt::format("# {}\n\n", Title(report));
  for (const auto& s : report.sources) out += fmt::format("- Input: `{}` ({})\n", s.path, s.format);
  if (report.launches_per_range) {
    out += fmt::format(
        "- Launch-range pairs: {} (nvtx_kern_sum counts a launch once in every range of its stack, so this is not "
        "the number of launches in ranges); launches outside every range: {}\n",
        report.launches_with_nvtx - std::min(report.launches_with_nvtx, report.launches_outside),
        report.launches_outside);
  } else {
    out += fmt::format("- Launches with NVTX state: {}; outside every range: {}\n", report.launches_with_nvtx,
                       report.launches_outside);
  }
  out += fmt::format("- Scopes (process, device): {}; aggregate: {}\n", report.scopes.size(),
                     report.aggregate ? "on" : "off");
  const std::vector<RegionEntry>* main = report.aggregate ? &*report.aggregate : nullptr;
  if ((main && main->empty()) || (!main && report.scopes.empty())) {
    out += "\nNo NVTX region matched.\n\n";
  }
  if (!report.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const auto& note : report.notes) out += (note.starts_with("- ") ? note : "- " + note) + "\n";
  }
  auto flush = [&] {
    stream << out;
    out.clear();
  };
  if (main && !main->empty()) {
    out += "\n";
    Tree(out, *main);
    for (const auto& e : *main) {
      RegionSection(out, e);
      flush();
    }
  }
  for (const auto& scope : report.scopes) {
    out += fmt::format("\n## Scope: process {}, device {}\n\n",
                       MdCell(scope.process.Known() ? scope.process.Label() : "?"),
                       MdCell(scope.device.empty() ? "?" : scope.device));
    MdTable table({{"Region", false, true},
                   {"Depth", true, true},
                   {"GPU kernel time (ms)", true},
                   {"Exclusive (ms)", true},
                   {"Copies (ms)", true},
                   {"GPU projection (ms)", true},
                   {"CPU range time (ms)", true},
                   {"Launches", true}});
    for (const auto& e : scope.regions) {
      const Region& r = *e.region;
      table.Row({MdPathCell(JoinPath(r.path)), std::to_string(r.depth), MsText(r.total_ns), MsText(r.exclusive_ns),
                 MsText(r.gpu_ops_ns), MsText(r.projected_ns), MsText(r.cpu_ns), CountText(r.KnownLaunches())});
    }
    out += table.Render();
    flush();
    if (!report.aggregate) {
      for (const auto& e : scope.regions) {
        RegionSection(out, e);
        flush();
      }
    }
  }
  DataQualityMd(out, report.diagnostics);
  flush();
}

std::string RegionMarkdown(const RegionEntry& entry) {
  std::string out = fmt::format("# Region {}\n", MdCell(entry.region->label, 200));
  RegionSection(out, entry);
  return out;
}

}  // namespace llmpo::report
