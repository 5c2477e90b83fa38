#include "src/report/phases_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

void Ms(JsonWriter& w, std::string_view key, const std::optional<double>& ns) { w.Member(key, OptionalMs(ns)); }
void Ms(JsonWriter& w, std::string_view key, double ns) { w.Member(key, ns / 1e6); }
std::optional<std::string> NonEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

void Strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& v) {
  w.Key(key);
  w.BeginArray();
  for (const auto& s : v) w.String(s);
  w.EndArray();
}

void Summary(JsonWriter& w, const analysis::PhaseSummary& s) {
  w.BeginObject();
  w.Member("phase", analysis::ToString(s.phase));
  w.Member("steps", static_cast<std::uint64_t>(s.steps));
  w.Member("warmup_steps", static_cast<std::uint64_t>(s.warmup_steps));
  Ms(w, "gpu_kernel_ms", s.gpu_kernel_ns);
  Ms(w, "gpu_idle_ms", s.gpu_idle_ns);
  w.Member("share_pct", s.share_pct);
  Ms(w, "mean_step_gpu_ms", s.mean_step_gpu_ns);
  w.Member("tokens", s.tokens);
  w.Member("steps_with_tokens", static_cast<std::uint64_t>(s.steps_with_tokens));
  w.Member("gpu_ns_per_token", s.gpu_ns_per_token);
  w.Member("tokens_from", NonEmpty(s.tokens_from));
  w.Key("top_kernels");
  w.BeginArray();
  for (const auto& k : s.top_kernels) {
    w.BeginObject();
    w.Member("name", k.name);
    w.Member("category", k.category);
    w.Member("bound", k.bound);
    Ms(w, "gpu_ms", k.gpu_ns);
    w.Member("launches", k.launches);
    w.EndObject();
  }
  w.EndArray();
  w.Key("categories");
  w.BeginArray();
  for (const auto& [name, ns] : s.categories) {
    w.BeginObject();
    w.Member("category", name);
    Ms(w, "gpu_ms", ns);
    w.EndObject();
  }
  w.EndArray();
  const auto& u = s.utilization;  // kernels.json 1.4.0
  w.Key("utilization");
  w.BeginObject();
  w.Member("model_flops", u.model_flops);
  w.Member("achieved_tflops", u.achieved_tflops);
  w.Member("mfu_pct", u.mfu_pct);
  w.Member("mfu_missing", NonEmpty(u.mfu_missing));
  w.Member("model_bytes", u.model_bytes);
  w.Member("achieved_gbps", u.achieved_gbps);
  w.Member("mbu_pct", u.mbu_pct);
  w.Member("mbu_missing", NonEmpty(u.mbu_missing));
  w.EndObject();
  w.EndObject();
}

void Step(JsonWriter& w, const analysis::PhaseStep& s) {
  w.BeginObject();
  w.Member("input", s.scope);
  w.Member("name", s.name);
  w.Member("phase", analysis::ToString(s.phase));
  w.Member("scheme", analysis::ToString(s.scheme));
  w.Member("prefill_requests", s.prefill_requests);
  w.Member("prefill_tokens", s.prefill_tokens);
  w.Member("decode_requests", s.decode_requests);
  w.Member("decode_tokens", s.decode_tokens);
  w.Member("tokens_from", NonEmpty(s.tokens_from));
  Ms(w, "cpu_ms", static_cast<double>(s.cpu_end_ns - s.cpu_start_ns));
  Ms(w, "gpu_kernel_ms", s.gpu_kernel_ns);
  Ms(w, "gpu_span_ms", s.gpu_span_ns);
  Ms(w, "gpu_idle_ms", s.gpu_idle_ns);
  Ms(w, "ttft_gpu_ms", s.ttft_gpu_ns);
  w.Member("kernels", s.kernels);
  w.Member("graph_launches", s.graph_launches);
  w.Member("warmup", s.warmup);
  w.Member("warmup_reason", NonEmpty(s.warmup_reason));
  w.EndObject();
}

void Graph(JsonWriter& w, const analysis::GraphRow& g) {
  w.BeginObject();
  w.Member("input", g.scope);
  w.Member("graph_id", g.graph_id);  // 1.4.0: the input's graph id (nsys SQLite), null when it records none
  w.Member("first_kernel", g.first_kernel);
  w.Member("launches", g.launches);
  w.Member("kernels", g.kernels);
  w.Member("kernels_per_launch_min", g.kernels_per_launch_min);
  w.Member("kernels_per_launch_max", g.kernels_per_launch_max);
  Ms(w, "gpu_kernel_ms", g.gpu_kernel_ns);
  Ms(w, "launch_call_ms", g.launch_call_ns);
  w.Key("ranges");
  w.BeginArray();
  for (const auto& r : g.ranges) {
    w.BeginObject();
    w.Member("range", NonEmpty(r.range));
    w.Member("phase", r.in_step ? std::optional<std::string>(std::string(analysis::ToString(r.phase))) : std::nullopt);
    w.Member("launches", r.launches);
    w.Member("kernels", r.kernels);
    Ms(w, "gpu_kernel_ms", r.gpu_kernel_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WritePhasesJson(JsonWriter& w, const analysis::PhaseReport& p) {
  w.BeginObject();
  Strings(w, "schemes", p.schemes);
  w.Member("steady_state", p.steady_state);
  w.Member("warmup_rule", NonEmpty(p.warmup_rule));
  w.Key("phases");
  w.BeginArray();
  for (const auto& s : p.phases) Summary(w, s);
  w.EndArray();
  w.Key("decode_batches");
  w.BeginArray();
  for (const auto& b : p.decode_batches) {
    w.BeginObject();
    w.Member("decode_tokens_per_step", b.tokens_per_step);
    w.Member("steps", static_cast<std::uint64_t>(b.steps));
    Ms(w, "mean_step_gpu_ms", b.mean_step_gpu_ns);
    w.Member("gpu_ns_per_token", b.gpu_ns_per_token);
    w.EndObject();
  }
  w.EndArray();
  w.Member("kernels_outside_steps", p.kernels_outside_steps);
  Ms(w, "gpu_ms_outside_steps", p.gpu_ns_outside_steps);
  w.Key("steps");
  w.BeginArray();
  for (const auto& s : p.steps) Step(w, s);
  w.EndArray();
  w.Key("graphs");
  w.BeginArray();
  for (const auto& g : p.graphs) Graph(w, g);
  w.EndArray();
  Strings(w, "notes", p.notes);
  w.EndObject();
}

}  // namespace llmpo::report
