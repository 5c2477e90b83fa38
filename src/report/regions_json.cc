#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "src/core/version.h"
#include "src/report/regions_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using Json = nlohmann::ordered_json;
using analysis::Region;

Json MetricsJson(const analysis::KernelAggregate& k, const analysis::MetricSelection& selection) {
  Json metrics = Json::array();
  for (const auto& m : k.metrics) {
    if (!selection.Shows(m)) continue;
    Json j = {
        {"name", m.name}, {"section", m.section}, {"unit", OutUnit(m)}, {"aggregation", analysis::ToString(m.rule)}};
    j["value"] = m.values ? Json(OutValue(m, m.Value())) : Json(nullptr);
    j["launches"] = m.values;
    j["missing"] = m.missing;
    metrics.push_back(std::move(j));
  }
  return metrics;
}

Json InstancesJson(const Region& r) {
  if (r.measured.count > 0) {
    Json j = {{"count", r.measured.count}, {"mean_ms", r.measured.total_ns / r.measured.count / 1e6}};
    if (r.kind != analysis::RegionKind::kSummary) {
      j["min_ms"] = r.measured.min_ns / 1e6;
      j["max_ms"] = r.measured.max_ns / 1e6;
    }
    return j;
  }
  if (r.instance_ns.empty()) return nullptr;
  double lo = r.instance_ns.begin()->second, hi = lo, sum = 0;
  for (const auto& [id, ns] : r.instance_ns) {
    lo = std::min(lo, ns);
    hi = std::max(hi, ns);
    sum += ns;
  }
  return {{"count", r.instance_ns.size()},
          {"mean_ms", sum / r.instance_ns.size() / 1e6},
          {"min_ms", lo / 1e6},
          {"max_ms", hi / 1e6}};
}

Json RegionObject(const RegionEntry& e, const std::string& process, const std::string& device,
                  const analysis::MetricSelection& selection) {
  const Region& r = e.region;
  Json kernels = Json::array();
  std::vector<const analysis::KernelAggregate*> sorted;
  for (const auto& [name, k] : r.kernels) sorted.push_back(&k);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->total_ns > b->total_ns; });
  for (const auto* k : sorted) {
    kernels.push_back({{"name", k->name},
                       {"calls", k->calls},
                       {"total_ms", k->total_ns / 1e6},
                       {"mean_ms", k->MeanNs() / 1e6},
                       {"metrics", MetricsJson(*k, selection)}});
  }
  Json j = {{"name", r.label},
            {"range", r.name},
            {"domain", r.domain.empty() ? Json(nullptr) : Json(r.domain)},
            {"kind", analysis::ToString(r.kind)},
            {"path", r.path},
            {"parent", e.parent_label ? Json(*e.parent_label) : Json(nullptr)},
            {"depth", r.depth},
            {"process", process},
            {"device", device},
            {"total_ms", r.TotalNs() / 1e6},
            {"total_is_sum_of_children", r.derived_total},
            {"exclusive_ms", r.exclusive_ns / 1e6},
            {"kernel_count", r.launches},
            {"excluded_launches", r.excluded},
            {"instances", InstancesJson(r)},
            {"folder", e.folder.empty() ? Json(nullptr) : Json(e.folder)},
            {"kernels", kernels}};
  if (r.measured.count > 0 && !r.range_metrics.metrics.empty()) {
    j["range_metrics"] = MetricsJson(r.range_metrics, selection);
  }
  return j;
}

Json RegionList(const std::vector<RegionEntry>& entries, const std::string& process, const std::string& device,
                const analysis::MetricSelection& selection) {
  Json list = Json::array();
  for (const auto& e : entries) list.push_back(RegionObject(e, process, device, selection));
  return list;
}

}  // namespace

std::string RegionsJson(const RegionsReport& report) {
  Json sources = Json::array();
  for (const auto& s : report.sources)
    sources.push_back({{"path", s.path}, {"format", s.format}, {"status", s.status}});
  Json root = {{"schema_version", kRegionsSchemaVersion},
               {"tool", {{"name", kToolName}, {"version", kToolVersion}}},
               {"sources", sources},
               {"selection", {{"sections", report.selection.sections}, {"metrics", report.selection.metrics}}},
               {"launches_with_nvtx", report.launches_with_nvtx},
               {"launches_outside_ranges", report.launches_outside}};
  if (report.aggregate) root["regions"] = RegionList(*report.aggregate, "all", "all", report.selection);
  Json scopes = Json::array();
  for (const auto& s : report.scopes) {
    scopes.push_back({{"process", s.process},
                      {"device", s.device},
                      {"regions", RegionList(s.regions, s.process, s.device, report.selection)}});
  }
  root["scopes"] = std::move(scopes);
  root["notes"] = report.notes;
  root["diagnostics"] = {{"rows_read", report.diagnostics.rows_read()},
                         {"rows_skipped", report.diagnostics.rows_skipped()}};
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string RegionJson(const RegionEntry& entry, const analysis::MetricSelection& selection) {
  Json root = RegionObject(entry, "", "", selection);
  root["schema_version"] = kRegionsSchemaVersion;
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string RegionKernelsCsv(const RegionEntry& entry, const analysis::MetricSelection& selection) {
  std::string out = "kernel,calls,total_ms,mean_ms,metric_section,metric_name,metric_unit,aggregation,value\n";
  for (const auto& [name, k] : entry.region.kernels) {
    const std::string head = fmt::format("{},{},{},{}", CsvField(name), k.calls, k.total_ns / 1e6, k.MeanNs() / 1e6);
    bool any = false;
    for (const auto& m : k.metrics) {
      if (!selection.Shows(m) || m.values == 0) continue;
      any = true;
      out += fmt::format("{},{},{},{},{},{}\n", head, CsvField(m.section), CsvField(m.name), CsvField(OutUnit(m)),
                         analysis::ToString(m.rule), OutValue(m, m.Value()));
    }
    if (!any) out += head + ",,,,,\n";
  }
  return out;
}

std::string RegionSectionsText(const RegionEntry& entry, const analysis::MetricSelection& selection) {
  std::string out = fmt::format("Region {} - selected sections and metrics, per kernel\n", entry.region.label);
  for (const auto& [name, k] : entry.region.kernels) {
    out += fmt::format("\n{}  ({} calls, {} ms)\n", name, k.calls, MsText(k.total_ns));
    std::string section = "\x01";
    for (const auto& m : k.metrics) {
      if (!selection.Shows(m)) continue;
      if (m.section != section) {
        section = m.section;
        out += fmt::format("  Section: {}\n", section.empty() ? "(none)" : section);
      }
      out += m.values ? fmt::format("    {:<50} {:>14.6g} {} ({})\n", m.name, OutValue(m, m.Value()), OutUnit(m),
                                    analysis::ToString(m.rule))
                      : fmt::format("    {:<50} {:>14} (no value)\n", m.name, "n/a");
    }
  }
  return out;
}

}  // namespace llmpo::report
