#include <fmt/format.h>

#include <algorithm>

#include "src/core/version.h"
#include "src/report/json_process.h"
#include "src/report/json_writer.h"
#include "src/report/regions_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using analysis::Region;

void WriteMetrics(JsonWriter& w, const analysis::KernelAggregate& k, const analysis::MetricSelection& selection) {
  w.BeginArray();
  for (const auto& m : k.metrics) {
    if (!selection.Shows(m)) continue;
    w.BeginObject();
    w.Member("name", m.name);
    w.Member("section", m.section);
    w.Member("unit", OutUnit(m));
    w.Member("aggregation", analysis::ToString(m.rule));
    w.Key("value");
    if (m.values) {
      w.Double(OutValue(m, m.Value()));
    } else {
      w.Null();
    }
    w.Member("launches", std::uint64_t{m.values});
    w.Member("missing", analysis::LaunchesWithout(k, m));
    w.EndObject();
  }
  w.EndArray();
}

void WriteInstances(JsonWriter& w, const Region& r) {
  std::string of;
  const auto stats = r.Instances(&of);
  if (!stats) return w.Null();
  w.BeginObject();
  w.Member("count", std::uint64_t{stats->count});
  w.Member("of", of);
  w.Member("mean_ms", stats->total_ns / static_cast<double>(stats->count) / 1e6);
  if (stats->has_extremes) {
    w.Member("min_ms", stats->min_ns / 1e6);
    w.Member("max_ms", stats->max_ns / 1e6);
  }
  w.EndObject();
}

void WriteOptionalString(JsonWriter& w, std::string_view key, const std::string* value) {
  w.Key(key);
  if (value == nullptr) return w.Null();
  w.String(*value);
}

// The region's quantities, each null where its inputs cannot tell.
void WriteQuantities(JsonWriter& w, const Region& r) {
  w.Member("total_ms", OptionalMs(r.total_ns));
  w.Member("total_is_sum_of_children", r.derived_total);
  w.Member("exclusive_ms", OptionalMs(r.exclusive_ns));
  w.Member("gpu_ops_ms", OptionalMs(r.gpu_ops_ns));
  w.Member("gpu_ops_exclusive_ms", OptionalMs(r.gpu_ops_exclusive_ns));
  w.Member("projected_ms", OptionalMs(r.projected_ns));
  w.Member("cpu_ms", OptionalMs(r.cpu_ns));
  w.Member("cpu_exclusive_ms", OptionalMs(r.cpu_exclusive_ns));
  w.Member("kernel_count", r.KnownLaunches());
  w.Member("gpu_op_count", r.KnownGpuOps());
  w.Member("excluded_launches", std::uint64_t{r.excluded});
}

// Values other inputs measured for the region, not used (region_combine.h).
void WriteAlsoMeasured(JsonWriter& w, const Region& r) {
  if (!r.also_measured.empty()) {
    w.Key("also_measured");
    w.BeginArray();
    for (const auto& a : r.also_measured) {
      w.BeginObject();
      w.Member("quantity", analysis::JsonKey(a.quantity));
      w.Member("input", a.input);
      w.Member("value_ms", a.ns / 1e6);
      w.EndObject();
    }
    w.EndArray();
  }
}

// What the analysis says of the region: kernel time per category, GPU busy
// share, ncu findings and rooflines.
void WriteRegionAnalysis(JsonWriter& w, const RegionEntry& e) {
  w.Key("category_ms");
  w.BeginObject();
  for (const auto& [category, ns] : e.category_ns) w.Member(category, ns / 1e6);
  w.EndObject();
  w.Member("busy_pct", e.busy_pct);
  WriteOptionalString(w, "busy_missing", e.busy_missing.empty() ? nullptr : &e.busy_missing);
  w.Key("findings");
  w.BeginArray();
  for (const auto& f : e.findings) {
    w.BeginObject();
    w.Member("rule", f.rule);
    w.Member("kernels", f.kernels);
    w.Member("launches", f.launches);
    w.Member("saving_pct", f.saving_pct);
    w.EndObject();
  }
  w.EndArray();
  w.Key("roofline");
  w.BeginArray();
  for (const auto& roof : e.roofline) {
    w.BeginObject();
    w.Member("precision", roof.precision);
    w.Member("level", roof.level);
    w.Member("kernels", roof.kernels);
    w.Member("time_ms", roof.time_ns / 1e6);
    w.Member("achieved_per_s", roof.achieved_per_s);
    w.Member("intensity", roof.intensity);
    w.Member("pct_of_roof", roof.pct_of_roof);
    w.EndObject();
  }
  w.EndArray();
}

// The region's kernels in the entry's order (most GPU kernel time first).
void WriteRegionKernels(JsonWriter& w, const RegionEntry& e, const analysis::MetricSelection& selection) {
  w.Key("kernels");
  w.BeginArray();
  for (const std::string& key : e.kernels_by_time) {
    const analysis::KernelAggregate* k = &e.region->kernels.at(key);
    w.BeginObject();
    w.Member("name", k->name);
    w.Member("calls", std::uint64_t{k->calls});
    w.Member("total_ms", k->timed_calls ? std::optional(k->total_ns / 1e6) : std::nullopt);
    w.Member("mean_ms", k->timed_calls ? std::optional(k->MeanNs() / 1e6) : std::nullopt);
    w.Key("metrics");
    WriteMetrics(w, *k, selection);
    w.EndObject();
  }
  w.EndArray();
}

// One region as an object (nlohmann dump(2) layout, see JsonWriter); the
// per-region report.json adds schema_version at the end.
void WriteRegionObject(JsonWriter& w, const RegionEntry& e, const std::string& process, const std::string& device,
                       const analysis::MetricSelection& selection, bool with_schema) {
  const Region& r = *e.region;
  w.BeginObject();
  w.Member("name", r.label);
  w.Member("range", r.name);
  WriteOptionalString(w, "domain", r.domain.empty() ? nullptr : &r.domain);
  w.Member("kind", analysis::ToString(r.kind));
  w.Key("path");
  w.BeginArray();
  for (const auto& p : r.path) w.String(p);
  w.EndArray();
  WriteOptionalString(w, "parent", e.parent_label ? &*e.parent_label : nullptr);
  w.Member("depth", r.depth);
  w.Member("process", process);
  w.Member("device", device);
  WriteQuantities(w, r);
  w.Key("instances");
  WriteInstances(w, r);
  w.Key("inputs");
  w.BeginArray();
  for (const auto& input : r.inputs) w.String(input);
  w.EndArray();
  WriteAlsoMeasured(w, r);
  WriteOptionalString(w, "folder", e.folder.empty() ? nullptr : &e.folder);
  WriteRegionAnalysis(w, e);
  WriteRegionKernels(w, e, selection);
  if (r.measured.count > 0 && !r.range_metrics.metrics.empty()) {
    w.Key("range_metrics");
    WriteMetrics(w, r.range_metrics, selection);
  }
  if (with_schema) w.Member("schema_version", kRegionsSchemaVersion);
  w.EndObject();
}

void WriteStrings(JsonWriter& w, std::string_view key, const std::vector<std::string>& items) {
  w.Key(key);
  w.BeginArray();
  for (const auto& item : items) w.String(item);
  w.EndArray();
}

// Region by region into `out`, so memory holds one region's text at a time.
void WriteRegionArray(std::ostream& out, std::string& text, JsonWriter& w, const std::vector<RegionEntry>& entries,
                      const std::string& process, const std::string& device,
                      const analysis::MetricSelection& selection) {
  w.BeginArray();
  for (const auto& e : entries) {
    WriteRegionObject(w, e, process, device, selection, false);
    out << text;
    text.clear();
  }
  w.EndArray();
}

}  // namespace

// Region by region, so memory holds one region's JSON at a time however many
// regions there are; one JsonWriter writes the whole document.
void WriteRegionsJson(const RegionsReport& report, std::ostream& out) {
  std::string text;
  JsonWriter w(text);
  w.BeginObject();
  WriteJsonHeader(w, kRegionsSchemaVersion, report.sources);
  w.Key("selection");
  w.BeginObject();
  WriteStrings(w, "sections", report.selection.sections);
  WriteStrings(w, "metrics", report.selection.metrics);
  w.EndObject();
  w.Member("launches_with_nvtx", static_cast<std::uint64_t>(report.launches_with_nvtx));
  w.Member("launches_outside_ranges", static_cast<std::uint64_t>(report.launches_outside));
  w.Member("launches_counted_per_range", report.launches_per_range);
  if (report.aggregate) {
    w.Key("regions");
    WriteRegionArray(out, text, w, *report.aggregate, "all", "all", report.selection);
  }
  w.Key("scopes");
  w.BeginArray();
  for (const auto& s : report.scopes) {
    w.BeginObject();
    WriteProcessMembers(w, s.process);
    w.Member("device", s.device);
    w.Key("regions");
    WriteRegionArray(out, text, w, s.regions, s.process.Label(), s.device, report.selection);
    w.EndObject();
  }
  w.EndArray();
  WriteStrings(w, "notes", report.notes);
  w.Key("diagnostics");
  w.BeginObject();
  w.Member("rows_read", static_cast<std::uint64_t>(report.diagnostics.rows_read()));
  w.Member("rows_skipped", static_cast<std::uint64_t>(report.diagnostics.rows_skipped()));
  w.EndObject();
  w.EndObject();
  out << text << "\n";
}

std::string RegionJson(const RegionEntry& entry, const analysis::MetricSelection& selection, const std::string& process,
                       const std::string& device) {
  std::string out;
  JsonWriter w(out);
  WriteRegionObject(w, entry, process, device, selection, true);
  return out + "\n";
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
