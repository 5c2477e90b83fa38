#include <nlohmann/json.hpp>

#include "src/core/version.h"
#include "src/report/kernels_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using Json = nlohmann::ordered_json;

Json MetricJson(const analysis::MetricAggregate& m) {
  Json j = {{"name", m.name}, {"section", m.section}, {"unit", OutUnit(m)}, {"aggregation", ToString(m.rule)}};
  j["value"] = m.values ? Json(OutValue(m, m.Value())) : Json(nullptr);
  j["min"] = m.values ? Json(OutValue(m, m.min)) : Json(nullptr);
  j["max"] = m.values ? Json(OutValue(m, m.max)) : Json(nullptr);
  j["launches"] = m.values;
  j["missing"] = m.missing;
  return j;
}

Json KernelJson(const analysis::KernelAggregate& k) {
  Json j = {{"name", k.name},
            {"source", k.source},
            {"process", k.process},
            {"device", k.device},
            {"calls", k.calls},
            {"timed_calls", k.timed_calls},
            {"total_ms", k.total_ns / 1e6},
            {"mean_ms", k.MeanNs() / 1e6}};
  j["min_ms"] = k.min_ns ? Json(*k.min_ns / 1e6) : Json(nullptr);
  j["max_ms"] = k.max_ns ? Json(*k.max_ns / 1e6) : Json(nullptr);
  Json metrics = Json::array();
  for (const auto& m : k.metrics) metrics.push_back(MetricJson(m));
  j["metrics"] = std::move(metrics);
  return j;
}

Json DiagnosticsJson(const model::Diagnostics& d) {
  Json entries = Json::array();
  for (const auto& [code, e] : d.entries()) {
    entries.push_back({{"code", code},
                       {"severity", model::ToString(e.severity)},
                       {"count", e.count},
                       {"first_example", e.first_example}});
  }
  return {{"rows_read", d.rows_read()}, {"rows_skipped", d.rows_skipped()}, {"entries", entries}, {"notes", d.notes()}};
}

}  // namespace

std::string KernelsJson(const KernelsReport& report) {
  Json sources = Json::array();
  for (const auto& s : report.sources)
    sources.push_back({{"path", s.path}, {"format", s.format}, {"status", s.status}});
  Json kernels = Json::array();
  for (const auto& k : report.kernels) kernels.push_back(KernelJson(k));
  Json root = {{"schema_version", kKernelsSchemaVersion},
               {"tool", {{"name", kToolName}, {"version", kToolVersion}}},
               {"sources", sources},
               {"kernels", kernels},
               {"diagnostics", DiagnosticsJson(report.diagnostics)}};
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace llmpo::report
