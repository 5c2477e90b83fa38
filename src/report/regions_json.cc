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
  bool extremes = false;
  const auto stats = r.Instances(&extremes);
  if (!stats) return nullptr;
  Json j = {{"count", stats->count}, {"mean_ms", stats->total_ns / stats->count / 1e6}};
  if (extremes) {
    j["min_ms"] = stats->min_ns / 1e6;
    j["max_ms"] = stats->max_ns / 1e6;
  }
  return j;
}

Json RegionObject(const RegionEntry& e, const std::string& process, const std::string& device,
                  const analysis::MetricSelection& selection) {
  const Region& r = *e.region;
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

// Writes `value` as nlohmann's dump(2) would inside a container nested
// `depth` levels deep, so the streamed file equals one big dump.
// `text` with `pad` after every newline, written in one piece.
void WriteIndented(std::ostream& out, const std::string& text, const std::string& pad) {
  std::string indented;
  indented.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    indented += c;
    if (c == '\n') indented += pad;
  }
  out << indented;
}

void WriteNested(std::ostream& out, const Json& value, int depth) {
  const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
  out << pad;
  WriteIndented(out, value.dump(2, ' ', false, Json::error_handler_t::replace), pad);
}

void WriteRegionArray(std::ostream& out, const std::vector<RegionEntry>& entries, const std::string& process,
                      const std::string& device, const analysis::MetricSelection& selection, int depth) {
  if (entries.empty()) {
    out << "[]";
    return;
  }
  out << "[\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    WriteNested(out, RegionObject(entries[i], process, device, selection), depth + 1);
    out << (i + 1 < entries.size() ? ",\n" : "\n");
  }
  out << std::string(static_cast<std::size_t>(2 * depth), ' ') << "]";
}

// A "key": value member at depth 1, with the value dumped as dump(2) would.
void WriteMember(std::ostream& out, const char* key, const Json& value, bool& first) {
  out << (first ? "\n" : ",\n") << "  \"" << key << "\": ";
  first = false;
  WriteIndented(out, value.dump(2, ' ', false, Json::error_handler_t::replace), "  ");
}

}  // namespace

// Region by region, so memory holds one region's JSON at a time however many
// regions there are.
void WriteRegionsJson(const RegionsReport& report, std::ostream& out) {
  Json sources = Json::array();
  for (const auto& s : report.sources)
    sources.push_back({{"path", s.path}, {"format", s.format}, {"status", s.status}});
  bool first = true;
  out << "{";
  WriteMember(out, "schema_version", kRegionsSchemaVersion, first);
  WriteMember(out, "tool", {{"name", kToolName}, {"version", kToolVersion}}, first);
  WriteMember(out, "sources", sources, first);
  WriteMember(out, "selection", {{"sections", report.selection.sections}, {"metrics", report.selection.metrics}},
              first);
  WriteMember(out, "launches_with_nvtx", report.launches_with_nvtx, first);
  WriteMember(out, "launches_outside_ranges", report.launches_outside, first);
  if (report.aggregate) {
    out << ",\n  \"regions\": ";
    WriteRegionArray(out, *report.aggregate, "all", "all", report.selection, 1);
  }
  out << ",\n  \"scopes\": ";
  if (report.scopes.empty()) {
    out << "[]";
  } else {
    out << "[\n";
    for (std::size_t i = 0; i < report.scopes.size(); ++i) {
      const auto& s = report.scopes[i];
      out << "    {\n      \"process\": " << Json(s.process).dump() << ",\n      \"device\": " << Json(s.device).dump()
          << ",\n      \"regions\": ";
      WriteRegionArray(out, s.regions, s.process, s.device, report.selection, 3);
      out << "\n    }" << (i + 1 < report.scopes.size() ? ",\n" : "\n");
    }
    out << "  ]";
  }
  WriteMember(out, "notes", report.notes, first);
  WriteMember(out, "diagnostics",
              {{"rows_read", report.diagnostics.rows_read()}, {"rows_skipped", report.diagnostics.rows_skipped()}},
              first);
  out << "\n}\n";
}

std::string RegionJson(const RegionEntry& entry, const analysis::MetricSelection& selection) {
  Json root = RegionObject(entry, "", "", selection);
  root["schema_version"] = kRegionsSchemaVersion;
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string RegionKernelsCsv(const RegionEntry& entry, const analysis::MetricSelection& selection) {
  std::string out = "kernel,calls,total_ms,mean_ms,metric_section,metric_name,metric_unit,aggregation,value\n";
  for (const auto& [name, k] : entry.region->kernels) {
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
  std::string out = fmt::format("Region {} - selected sections and metrics, per kernel\n", entry.region->label);
  for (const auto& [name, k] : entry.region->kernels) {
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
