#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "src/report/regions_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using analysis::Region;

std::string Instances(const Region& r) {
  bool extremes = false;
  const auto stats = r.Instances(&extremes);
  if (!stats) return "not recorded by this source";
  if (!extremes) return fmt::format("{}", stats->count);
  return fmt::format("{} (min {} / mean {} / max {} ms)", stats->count, MsText(stats->min_ns),
                     MsText(stats->total_ns / stats->count), MsText(stats->max_ns));
}

void Tree(std::string& out, const std::vector<RegionEntry>& entries) {
  out += "## Region tree\n\n```\n";
  for (const auto& e : entries) {
    const Region& r = *e.region;
    out += fmt::format("{}{}  total {} ms, exclusive {} ms, {} launches\n", std::string(2 * r.depth, ' '),
                       OneLine(r.label), MsText(r.TotalNs()), MsText(r.exclusive_ns), r.launches);
  }
  out += "```\n";
}

void RegionSection(std::string& out, const RegionEntry& e, const analysis::MetricSelection& selection) {
  const Region& r = *e.region;
  out += fmt::format("\n## {}\n\n", MdCell(r.label, 200));
  out += fmt::format("- Path: {}\n- Kind: {}; depth {}; parent: {}\n", MdCell(JoinPath(r.path), 300),
                     analysis::ToString(r.kind), r.depth, e.parent_label ? MdCell(*e.parent_label) : "none");
  out += fmt::format("- Total: {} ms{}; exclusive: {} ms\n", MsText(r.TotalNs()),
                     r.derived_total ? " (sum of its children; not measured itself)" : "", MsText(r.exclusive_ns));
  if (r.measured.count > 0 && r.kind != analysis::RegionKind::kSummary) {
    out += fmt::format("- Range-replay results: {} (whole-range measurements)\n", r.measured.count);
  }
  out += fmt::format("- Kernel launches: {}{}\n- Instances: {}\n", r.launches,
                     r.excluded ? fmt::format(" ({} left out by the kernel filter)", r.excluded) : "", Instances(r));
  if (!e.folder.empty()) out += fmt::format("- Folder: `{}/`\n", e.folder);
  if (!r.kernels.empty()) {
    out += "\n";
    KernelTableMd(out, r.kernels, selection);
  } else if (r.launches == 0 && r.measured.count == 0) {
    out += "\nNo kernel of this region passed the kernel selection.\n";
  }
}

// "NCU" when every input is an ncu output (the seeds' heading, which their
// checks look for); the regions of nsys exports and our traces are NVTX's.
std::string_view Title(const RegionsReport& report) {
  const bool all_ncu =
      !report.sources.empty() && std::all_of(report.sources.begin(), report.sources.end(),
                                             [](const SourceInfo& s) { return s.format.starts_with("ncu"); });
  return all_ncu ? "NCU Region Reports" : "NVTX Region Reports";
}

}  // namespace

// Written section by section (a report can hold thousands of regions).
void WriteRegionsMarkdown(const RegionsReport& report, std::ostream& stream) {
  std::string out = fmt::format("# {}\n\n", Title(report));
  for (const auto& s : report.sources) out += fmt::format("- Input: `{}` ({})\n", s.path, s.format);
  out += fmt::format("- Launches with NVTX state: {}; outside every range: {}\n", report.launches_with_nvtx,
                     report.launches_outside);
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
      RegionSection(out, e, report.selection);
      flush();
    }
  }
  for (const auto& scope : report.scopes) {
    out += fmt::format("\n## Scope: process {}, device {}\n\n", MdCell(scope.process.empty() ? "?" : scope.process),
                       MdCell(scope.device.empty() ? "?" : scope.device));
    out += "| Region | Depth | Total (ms) | Exclusive (ms) | Launches |\n|---|---:|---:|---:|---:|\n";
    for (const auto& e : scope.regions) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", MdCell(JoinPath(e.region->path)), e.region->depth,
                         MsText(e.region->TotalNs()), MsText(e.region->exclusive_ns), e.region->launches);
    }
    flush();
    if (!report.aggregate) {
      for (const auto& e : scope.regions) {
        RegionSection(out, e, report.selection);
        flush();
      }
    }
  }
  DataQualityMd(out, report.diagnostics);
  flush();
}

std::string RegionMarkdown(const RegionEntry& entry, const analysis::MetricSelection& selection) {
  std::string out = fmt::format("# Region {}\n", MdCell(entry.region->label, 200));
  RegionSection(out, entry, selection);
  return out;
}

}  // namespace llmpo::report
