// compare.json: the compare report for programs (docs/compare.md). Times
// in ns as the model holds them; unknown is null.
#include <nlohmann/json.hpp>

#include "src/core/version.h"
#include "src/report/compare_model.h"
#include "src/report/json_writer.h"

namespace llmpo::report {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json Opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json TestJson(const analysis::ChangeTest& t) {
  return Json{{"verdict", analysis::ToString(t.verdict)},
              {"tested", t.tested},
              {"p_value", Opt(t.p_value)},
              {"change_pct", Opt(t.change_pct)}};
}

template <typename T>
Json OptTest(const std::optional<T>& t) {
  return t ? TestJson(*t) : Json(nullptr);
}

Json Rows(const std::vector<AttributionRow>& rows) {
  Json out = Json::array();
  for (const auto& r : rows) out.push_back(Json{{"what", r.what}, {"delta_ns", r.delta_ns}});
  return out;
}

Json KernelJson(const KernelDelta& k) {
  return Json{{"name", k.name},
              {"match", k.match},
              {"category", k.category},
              {"base_ns", Opt(k.base_ns)},
              {"new_ns", Opt(k.new_ns)},
              {"delta_ns", k.delta_ns},
              {"base_calls", k.base_calls},
              {"new_calls", k.new_calls},
              {"base_mean_ns", Opt(k.base_mean_ns)},
              {"new_mean_ns", Opt(k.new_mean_ns)},
              {"mean_test", OptTest(k.mean_test)},
              {"base_bound", k.base_bound},
              {"new_bound", k.new_bound},
              {"base_sm_pct", Opt(k.base_sm_pct)},
              {"new_sm_pct", Opt(k.new_sm_pct)},
              {"base_dram_pct", Opt(k.base_dram_pct)},
              {"new_dram_pct", Opt(k.new_dram_pct)},
              {"base_occupancy_pct", Opt(k.base_occupancy_pct)},
              {"new_occupancy_pct", Opt(k.new_occupancy_pct)}};
}

Json RegionJson(const RegionDelta& r) {
  return Json{{"path", r.path},
              {"match", r.match},
              {"base_regions", r.base_regions},
              {"new_regions", r.new_regions},
              {"base_ns", Opt(r.base_ns)},
              {"new_ns", Opt(r.new_ns)},
              {"delta_ns", Opt(r.delta_ns)},
              {"test", OptTest(r.test)},
              {"base_copy_ns", Opt(r.base_copy_ns)},
              {"new_copy_ns", Opt(r.new_copy_ns)},
              {"base_projected_ns", Opt(r.base_projected_ns)},
              {"new_projected_ns", Opt(r.new_projected_ns)},
              {"base_cpu_ns", Opt(r.base_cpu_ns)},
              {"new_cpu_ns", Opt(r.new_cpu_ns)},
              {"base_launches", Opt(r.base_launches)},
              {"new_launches", Opt(r.new_launches)},
              {"contributors", Rows(r.contributors)}};
}

Json SequenceRowJson(const SequenceRow& r) {
  return Json{{"op", r.op},
              {"base_position", Opt(r.base_position)},
              {"new_position", Opt(r.new_position)},
              {"name", r.name},
              {"base_mean_ns", Opt(r.base_mean_ns)},
              {"new_mean_ns", Opt(r.new_mean_ns)},
              {"delta_ns", Opt(r.delta_ns)},
              {"test", OptTest(r.test)}};
}

Json SequenceJson(const SequenceDelta& d) {
  Json rows = Json::array();
  for (const auto& r : d.rows) rows.push_back(SequenceRowJson(r));
  return Json{{"path", d.path},
              {"scope", d.scope},
              {"signature", d.signature},
              {"base_instances", d.base_instances},
              {"new_instances", d.new_instances},
              {"base_length", d.base_length},
              {"new_length", d.new_length},
              {"same", d.same},
              {"inserted", d.inserted},
              {"removed", d.removed},
              {"slower", d.slower},
              {"faster", d.faster},
              {"base_instance_ns", Opt(d.base_instance_ns)},
              {"new_instance_ns", Opt(d.new_instance_ns)},
              {"delta_instance_ns", Opt(d.delta_instance_ns)},
              {"rows", std::move(rows)}};
}

Json ScopeJson(const ScopeDelta& s) {
  return Json{{"scope", s.scope},
              {"base_ns", Opt(s.base_ns)},
              {"new_ns", Opt(s.new_ns)},
              {"delta_ns", s.delta_ns},
              {"base_launches", s.base_launches},
              {"new_launches", s.new_launches},
              {"test", OptTest(s.test)}};
}

Json ComparisonJson(const Comparison& c) {
  Json kernels = Json::array(), regions = Json::array(), sequences = Json::array();
  for (const auto& k : c.kernels) kernels.push_back(KernelJson(k));
  for (const auto& r : c.regions) regions.push_back(RegionJson(r));
  for (const auto& s : c.sequences) sequences.push_back(SequenceJson(s));
  Json scopes = Json::array();
  for (const auto& s : c.scopes) scopes.push_back(ScopeJson(s));
  return Json{{"base", c.base_label},
              {"new", c.new_label},
              {"base_times_from", c.base_times_from},
              {"new_times_from", c.new_times_from},
              {"total", Json{{"base_ns", c.base_kernel_ns},
                             {"new_ns", c.new_kernel_ns},
                             {"delta_ns", c.delta_ns},
                             {"base_launches", c.base_launches},
                             {"new_launches", c.new_launches},
                             {"test", TestJson(c.total_test)}}},
              {"attribution", Rows(c.attribution)},
              {"scopes", std::move(scopes)},
              {"kernels", std::move(kernels)},
              {"regions", std::move(regions)},
              {"launch_order", std::move(sequences)},
              {"guardrails", c.guardrails},
              {"notes", c.notes}};
}

}  // namespace

std::string CompareJson(const CompareReport& report) {
  Json comparisons = Json::array();
  for (const auto& c : report.comparisons) comparisons.push_back(ComparisonJson(c));
  const Json doc{{"schema_version", kCompareSchemaVersion},
                 {"tool", Json{{"name", kToolName}, {"version", kToolVersion}}},
                 {"sides", report.sides},
                 {"options", Json{{"alpha", report.options.significance.alpha},
                                  {"min_effect_pct", report.options.significance.min_effect_pct},
                                  {"top", report.options.top}}},
                 {"comparisons", std::move(comparisons)}};
  return JsonFileText(doc);
}

}  // namespace llmpo::report
