// kernels.json, written with JsonWriter (no document in memory: a report can
// hold thousands of kernels with dozens of metrics each).
#include <sstream>

#include "src/core/version.h"
#include "src/report/json_process.h"
#include "src/report/json_writer.h"
#include "src/report/kernels_report.h"
#include "src/report/phases_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

void OptionalDouble(JsonWriter& w, std::string_view key, bool present, double value) {
  w.Key(key);
  if (present) {
    w.Double(value);
  } else {
    w.Null();
  }
}

void WriteMetric(JsonWriter& w, const analysis::KernelAggregate& k, const analysis::MetricAggregate& m) {
  w.BeginObject();
  w.Member("name", m.name);
  w.Member("section", m.section);
  w.Member("unit", OutUnit(m));
  w.Member("aggregation", ToString(m.rule));
  OptionalDouble(w, "value", m.values > 0, m.values ? OutValue(m, m.Value()) : 0);
  OptionalDouble(w, "min", m.values > 0, OutValue(m, m.min));
  OptionalDouble(w, "max", m.values > 0, OutValue(m, m.max));
  w.Member("launches", std::uint64_t{m.values});
  w.Member("missing", analysis::LaunchesWithout(k, m));
  w.EndObject();
}

void WriteBound(JsonWriter& w, const analysis::Bound& b) {
  w.BeginObject();
  w.Member("class", analysis::ToString(b.cls));
  w.Member("unit", b.unit.empty() ? std::optional<std::string>() : std::optional(b.unit));
  w.Member("sm_pct", b.sm_pct);
  w.Member("memory_pct", b.memory_pct);
  w.Member("waves_per_sm", b.waves_per_sm);
  w.Member("reason", b.reason);
  w.EndObject();
}

std::optional<std::string> NonEmpty(const std::string& s) { return s.empty() ? std::nullopt : std::optional(s); }

void WriteRoofline(JsonWriter& w, const analysis::Roofline& r) {
  w.BeginObject();
  w.Key("precisions");
  w.BeginArray();
  for (const auto& p : r.precisions) {
    w.BeginObject();
    w.Member("precision", p.precision);
    if (p.precision == "tensor") {
      w.Member("path", p.path);
      w.Member("instruction", NonEmpty(p.instruction));
      w.Member("sparse", p.sparse);
    }
    w.Member("achieved_per_s", p.achieved_per_s);
    w.Member("peak_per_s", p.peak_per_s);
    w.Member("missing", NonEmpty(p.missing));
    w.Key("levels");
    w.BeginArray();
    for (const auto& l : p.levels) {
      w.BeginObject();
      w.Member("level", l.level);
      w.Member("achieved_bytes_per_s", l.achieved_bytes_per_s);
      w.Member("peak_bytes_per_s", l.peak_bytes_per_s);
      w.Member("intensity", l.intensity);
      w.Member("ridge", l.ridge);
      w.Member("pct_of_roof", l.pct_of_roof);
      w.Member("missing", NonEmpty(l.missing));
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Member("missing", NonEmpty(r.missing));
  w.EndObject();
}

void WriteFindings(JsonWriter& w, const std::vector<analysis::KernelFinding>& findings) {
  w.BeginArray();
  for (const auto& k : findings) {
    const auto& f = k.finding;
    w.BeginObject();
    w.Member("rule", f.rule);
    w.Member("section", f.section);
    w.Member("type", model::ToString(f.type));
    w.Member("message", f.message);
    w.Member("speedup_kind",
             f.speedup_kind ? std::optional(std::string(model::ToString(*f.speedup_kind))) : std::nullopt);
    w.Member("speedup_pct", k.MeanSpeedupPct());
    w.Member("max_speedup_pct", f.speedup_pct);
    w.Member("launches", std::uint64_t{k.launches});
    w.EndObject();
  }
  w.EndArray();
}

void WriteActions(JsonWriter& w, const std::vector<Action>& actions) {
  w.BeginArray();
  for (const auto& a : actions) {
    w.BeginObject();
    w.Member("kernel", a.kernel);
    w.Member("category", a.category);
    w.Member("share_pct", a.share_pct);
    w.Member("time_ms", OptionalMs(a.time_ns));
    w.Member("speedup_pct", a.speedup_pct);
    w.Member("basis", a.basis);
    w.Member("saving_pct_of_gpu", a.saving_pct_of_gpu);
    w.Member("rule", NonEmpty(a.rule));
    w.Member("section", NonEmpty(a.section));
    w.Member("message", a.message);
    w.Member("evidence", a.evidence);
    w.EndObject();
  }
  w.EndArray();
}

void WriteTimelineRules(JsonWriter& w, const analysis::TimelineRulesResult& rules) {
  w.BeginArray();
  for (const auto& f : rules.findings) {
    w.BeginObject();
    w.Member("rule", f.rule);
    w.Member("scope", f.scope);
    w.Member("saving_ms", f.saving_ns / 1e6);
    w.Member("span_ms", OptionalMs(f.span_ns));
    w.Member("saving_pct_of_span", f.saving_pct);
    w.Member("message", f.message);
    w.Member("evidence", f.evidence);
    w.EndObject();
  }
  w.EndArray();
}

void WriteKernel(JsonWriter& w, const analysis::KernelAggregate& k, const KernelInsight* insight) {
  w.BeginObject();
  w.Member("name", k.name);
  w.Member("source", k.source);
  WriteProcessMembers(w, k.process);
  w.Member("device", k.device);
  w.Member("calls", std::uint64_t{k.calls});
  w.Member("timed_calls", std::uint64_t{k.timed_calls});
  // No duration from the source: unknown, not 0.
  OptionalDouble(w, "total_ms", k.timed_calls > 0, k.total_ns / 1e6);
  OptionalDouble(w, "mean_ms", k.timed_calls > 0, k.MeanNs() / 1e6);
  OptionalDouble(w, "min_ms", k.min_ns.has_value(), k.min_ns.value_or(0) / 1e6);
  OptionalDouble(w, "max_ms", k.max_ns.has_value(), k.max_ns.value_or(0) / 1e6);
  OptionalDouble(w, "median_ms", k.median_ns.has_value(), k.median_ns.value_or(0) / 1e6);
  OptionalDouble(w, "stddev_ms", k.stddev_ns.has_value(), k.stddev_ns.value_or(0) / 1e6);
  OptionalDouble(w, "time_pct", k.time_pct.has_value(), k.time_pct.value_or(0));
  if (insight != nullptr) {
    w.Member("category", insight->category);
    w.Key("bound");
    WriteBound(w, insight->bound);
    w.Key("roofline");
    WriteRoofline(w, insight->roofline);
  }
  w.Key("findings");
  WriteFindings(w, k.findings);
  w.Key("metrics");
  w.BeginArray();
  for (const auto& m : k.metrics) WriteMetric(w, k, m);
  w.EndArray();
  w.EndObject();
}

void WriteDiagnostics(JsonWriter& w, const model::Diagnostics& d) {
  w.BeginObject();
  w.Member("rows_read", std::uint64_t{d.rows_read()});
  w.Member("rows_skipped", std::uint64_t{d.rows_skipped()});
  w.Key("entries");
  w.BeginArray();
  for (const auto& [code, e] : d.entries()) {
    w.BeginObject();
    w.Member("code", code);
    w.Member("severity", model::ToString(e.severity));
    w.Member("count", std::uint64_t{e.count});
    w.Member("first_example", e.first_example);
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes");
  w.BeginArray();
  for (const auto& note : d.notes()) w.String(note);
  w.EndArray();
  w.EndObject();
}

void WriteTimes(JsonWriter& w, const model::TimeStats& t) {
  w.Member("total_ms", OptionalMs(t.total_ns));
  w.Member("mean_ms", OptionalMs(t.mean_ns));
  w.Member("median_ms", OptionalMs(t.median_ns));
  w.Member("min_ms", OptionalMs(t.min_ns));
  w.Member("max_ms", OptionalMs(t.max_ns));
  w.Member("stddev_ms", OptionalMs(t.stddev_ns));
}

void WriteRuntime(JsonWriter& w, const analysis::RuntimeSummaries& r) {
  w.Key("cuda_api");
  w.BeginArray();
  for (const auto& [source, row] : r.api_calls) {
    w.BeginObject();
    w.Member("name", row.name);
    w.Member("source", source);
    w.Member("rank", row.rank);
    w.Member("calls", row.calls);
    WriteTimes(w, row.time);
    w.Member("time_pct", row.time_pct);
    w.EndObject();
  }
  w.EndArray();
  w.Key("gpu_memory_operations");
  w.BeginArray();
  for (const auto& [source, row] : r.gpu_ops) {
    w.BeginObject();
    w.Member("operation", row.operation);
    w.Member("source", source);
    w.Member("count", row.count);
    WriteTimes(w, row.time.value_or(model::TimeStats{}));
    w.Member("total_bytes", row.total_bytes);
    w.Member("mean_bytes", row.mean_bytes);
    w.Member("max_bytes", row.max_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("launch_overhead");
  w.BeginArray();
  for (const auto& [source, row] : r.launch_overhead) {
    w.BeginObject();
    w.Member("kernel", row.kernel_name);
    w.Member("api", row.api_name);
    w.Member("from", model::ToString(row.from));
    w.Member("source", source);
    WriteProcessMembers(w, row.process);
    w.Member("thread", row.thread);
    w.Member("device", row.device);
    w.Member("count", row.count);
    w.Member("launches_with_queue_time", row.queue_count);
    w.Member("api_mean_ms", OptionalMs(row.api_mean_ns));
    w.Member("api_median_ms", OptionalMs(row.api_median_ns));
    w.Member("api_max_ms", OptionalMs(row.api_max_ns));
    w.Member("queue_mean_ms", OptionalMs(row.queue_mean_ns));
    w.Member("queue_median_ms", OptionalMs(row.queue_median_ns));
    w.Member("queue_max_ms", OptionalMs(row.queue_max_ns));
    w.Member("kernel_mean_ms", OptionalMs(row.kernel_mean_ns));
    w.Member("total_mean_ms", OptionalMs(row.total_mean_ns));
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteJsonHeader(JsonWriter& w, std::string_view schema_version, const std::vector<SourceInfo>& sources) {
  w.Member("schema_version", schema_version);
  w.Key("tool");
  w.BeginObject();
  w.Member("name", kToolName);
  w.Member("version", kToolVersion);
  w.EndObject();
  w.Key("sources");
  w.BeginArray();
  for (const auto& s : sources) {
    w.BeginObject();
    w.Member("path", s.path);
    w.Member("format", s.format);
    w.Member("status", s.StatusText());
    w.EndObject();
  }
  w.EndArray();
}

namespace {

// kernels_combined: per region, the timeline's kernels and the ncu metrics
// of their paired launches ("by_launch") or of the kernel's name ("by_name").
void WriteRegionKernels(JsonWriter& w, const std::vector<analysis::RegionKernel>& rows) {
  w.Key("region_kernels");
  w.BeginArray();
  for (const auto& row : rows) {
    w.BeginObject();
    w.Key("region");
    w.BeginArray();
    for (const auto& label : row.region) w.String(label);
    w.EndArray();
    w.Member("name", row.kernel.name);
    w.Member("calls", row.kernel.calls);
    OptionalDouble(w, "total_ms", row.kernel.timed_calls > 0, row.kernel.total_ns / 1e6);
    w.Member("ncu_match", row.kernel.metrics.empty() ? "none" : row.by_launch ? "by_launch" : "by_name");
    w.Key("metrics");
    w.BeginArray();
    for (const auto& m : row.kernel.metrics) WriteMetric(w, row.kernel, m);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteKernelsJson(const KernelsReport& report, const analysis::PhaseReport* phases, std::ostream& sink) {
  std::string out;
  JsonWriter w(out, sink);
  w.BeginObject();
  WriteJsonHeader(w, kKernelsSchemaVersion, report.sources);
  w.Key("kernels");
  w.BeginArray();
  for (std::size_t i = 0; i < report.kernels.size(); ++i) {
    WriteKernel(w, report.kernels[i], report.kernels[i].insight ? &*report.kernels[i].insight : nullptr);
  }
  w.EndArray();
  w.Key("gpu_timeline");
  w.BeginArray();
  for (const auto& b : report.gpu_busy) {
    w.BeginObject();
    w.Member("source", b.source);
    w.Member("device", b.device);
    w.Member("kernels", b.kernels);
    w.Member("copies", b.copies);
    w.Member("span_ms", b.span_ns / 1e6);
    w.Member("busy_ms", OptionalMs(b.busy_ns));
    w.Member("idle_ms", OptionalMs(b.idle_ns));
    w.Member("idle_pct", b.idle_pct);
    w.Member("missing", NonEmpty(b.missing));
    w.EndObject();
  }
  w.EndArray();
  w.Member("times_from", NonEmpty(report.times_from));
  if (!report.region_kernels.empty()) WriteRegionKernels(w, report.region_kernels);
  w.Key("actions");
  WriteActions(w, report.actions);
  w.Member("why_no_actions", NonEmpty(report.why_no_actions));
  w.Key("timeline_findings");
  WriteTimelineRules(w, report.timeline_rules);
  w.Key("timeline_rules_not_evaluated");
  w.BeginArray();
  for (const auto& why : report.timeline_rules.not_evaluated) w.String(why);
  w.EndArray();
  w.Key("what_to_do_first");
  WriteRankedJson(w, report.ranked);
  WriteRuntime(w, report.runtime);
  w.Key("diagnostics");
  WriteDiagnostics(w, report.diagnostics);
  if (phases != nullptr) {  // 1.3.0
    w.Key("phases");
    WritePhasesJson(w, *phases);
  }
  w.EndObject();
  out += "\n";
  w.Flush();
}

std::string KernelsJson(const KernelsReport& report, const analysis::PhaseReport* phases) {
  std::ostringstream out;
  WriteKernelsJson(report, phases, out);
  return std::move(out).str();
}

}  // namespace llmpo::report
