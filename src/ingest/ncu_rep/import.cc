// `import x.ncu-rep` without ncu: each result of the native reader becomes a
// LaunchRecord (metrics in base units from the unit catalogue, duration,
// NVTX stack, findings), each device a DeviceInfo.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <unordered_map>

#include "src/core/metric_units.h"
#include "src/ingest/importer.h"
#include "src/ingest/ncu_rep/reader.h"

namespace llmpo::ingest {
namespace {

namespace fs = std::filesystem;

std::string Dim3(const std::optional<std::array<std::uint64_t, 3>>& d) {
  return d ? fmt::format("({}, {}, {})", (*d)[0], (*d)[1], (*d)[2]) : std::string();
}

// ncu's CSV shows the executable's file name; the report stores its path
// (with backslashes on Windows hosts).
model::ProcessId ProcessOf(const ncurep::ProfileResult& r) {
  model::ProcessId process;
  process.name = r.process_name;
  const std::size_t slash = process.name.find_last_of("/\\");
  if (slash != std::string::npos) process.name = process.name.substr(slash + 1);
  if (r.process_id) process.pid = static_cast<std::int64_t>(*r.process_id);
  return process;
}

std::string ValueText(const ncurep::Value& v) {
  if (v.text) return *v.text;
  if (v.integer) return std::to_string(*v.integer);
  if (v.number) return fmt::format("{}", *v.number);
  return {};
}

class LaunchBuilder : public ncurep::Visitor {
 public:
  explicit LaunchBuilder(ImportContext& ctx) : ctx_(ctx) {}

  void OnResult(const ncurep::ProfileResult& r) override {
    ctx_.diagnostics.CountRow();
    model::LaunchRecord launch;
    launch.result_id = std::to_string(r.index);
    launch.kernel_name = r.demangled_name.empty() ? r.function_name : r.demangled_name;
    if (launch.kernel_name.empty()) launch.kernel_name = r.mangled_name;
    if (r.range) launch.kind = model::LaunchKind::kRange;
    launch.process = ProcessOf(r);
    launch.block_size = Dim3(r.block_size);
    launch.grid_size = Dim3(r.grid_size);
    if (r.stream_id) launch.stream = static_cast<std::int64_t>(*r.stream_id);
    if (const auto* device = r.FindMetric("device__attribute_display_name")) {
      if (const auto* v = device->Scalar(); v && v->text) launch.device = *v->text;
    }
    SectionsOf(r);
    for (const auto& m : r.metrics) AddMetric(r, m, launch);
    launch.metric_layout = LayoutOf(launch.metrics);
    launch.has_nvtx = r.has_nvtx;
    for (const auto& f : r.LaunchStack()) launch.nvtx_stack.push_back({f.domain, f.name, std::nullopt});
    for (const auto& s : r.nvtx_start_end) {
      launch.nvtx_start_end.push_back(
          {s.domain, s.name, s.id ? std::optional<std::int64_t>(static_cast<std::int64_t>(*s.id)) : std::nullopt});
    }
    for (const auto& rule : r.rules) {
      launch.findings.insert(launch.findings.end(), rule.messages.begin(), rule.messages.end());
    }
    ctx_.sink.OnLaunch(launch);
  }

  void OnSession(const ncurep::Session& session) override {
    for (const auto& d : session.devices) ctx_.sink.OnDevice(ToDeviceInfo(d));
    if (!session.NcuVersion().empty())
      ctx_.diagnostics.Note(fmt::format("{}: written by Nsight Compute {}", ctx_.source, session.NcuVersion()));
    if (!unknown_units_.empty()) {
      std::string listed;
      std::size_t shown = 0;
      for (const auto& name : unknown_units_) {
        if (shown++ == 20) break;
        listed += (listed.empty() ? "" : ", ") + name;
      }
      ctx_.diagnostics.Note(fmt::format("{}: {} metric(s) of unknown unit, kept without a unit: {}{}", ctx_.source,
                                        unknown_units_.size(), listed, unknown_units_.size() > 20 ? ", …" : ""));
    }
  }

 private:
  void AddMetric(const ncurep::ProfileResult& r, const ncurep::MetricEntry& m, model::LaunchRecord& launch) {
    const ncurep::Value* v = m.Scalar();
    if (v == nullptr) {
      // Per-instance data (PM sampling series, per-opcode counts): no single value.
      ctx_.diagnostics.AddLazy(model::Diag::ncu_rep_instance_values, [&] {
        return fmt::format("{}: result {}: {} has {} per-instance values and no single value; not imported",
                           ctx_.source, r.index, model::Excerpt(m.name()), m.instances.size());
      });
      return;
    }
    // A breakdown metric ("TPC.TriageCompute.sm__cycles_active.avg") is named
    // as the raw-page CSV reader names it: the metric, its prefix as section.
    const BreakdownSplit split = SplitBreakdownPrefix(m.name());
    std::string section_name(split.prefix);
    if (split.prefix.empty()) {
      auto section = section_of_.find(m.name());
      if (section != section_of_.end()) section_name = section->second;
    }
    model::Metric metric{std::string(split.metric), std::move(section_name), {}};
    ParsedValue& p = metric.value;
    // The report stores numbers, not text: raw_value stays empty for them.
    if (v->text) {
      p.raw_value = *v->text;
      p.unparsable = true;  // a word (a device name, a cache policy): kept, never aggregated
    } else if (!std::isfinite(*v->number)) {
      p.unparsable = p.non_finite = true;
      ctx_.diagnostics.AddLazy(model::Diag::non_finite_number, [&] {
        return fmt::format("{}: result {}: {} is not a finite number; left unknown", ctx_.source, r.index,
                           model::Excerpt(m.name()));
      });
    } else {
      p.value = *v->number;
    }
    SetUnit(m.name(), p);
    if (m.name() == "gpu__time_duration.sum" && p.value) {
      if (*p.value >= 0) {
        launch.duration_ns = *p.value;
      } else {
        ctx_.diagnostics.Add(model::Diag::negative_duration, fmt::format("{}: result {}: gpu__time_duration.sum = {} ns is "
                                                              "negative; the launch has no duration",
                                                              ctx_.source, r.index, *p.value));
      }
    }
    launch.metrics.push_back(std::move(metric));
  }

  // The section display name of each metric a section header lists (the
  // first section wins), as ncu's details page shows it.
  void SectionsOf(const ncurep::ProfileResult& r) {
    section_of_.clear();
    for (const auto& s : r.sections) {
      for (const auto& [name, label] : s.header) section_of_.emplace(name, s.display_name);
    }
  }

  // The catalogue's unit of a metric, looked up once per name.
  struct UnitSlot {
    bool known = false;
    std::string base_unit;
    UnitInfo info;
  };

  const UnitSlot& UnitOf(const std::string& name) {
    auto it = units_.find(name);
    if (it != units_.end()) return it->second;
    UnitSlot slot;
    if (const std::optional<std::string> unit = BaseUnitOfMetric(name)) {
      slot.known = true;
      slot.base_unit = *unit;
      slot.info = LookupUnit(*unit);
    }
    return units_.emplace(name, std::move(slot)).first->second;
  }

  void SetUnit(const std::string& name, ParsedValue& p) {
    const UnitSlot& unit = UnitOf(name);
    if (!unit.known) {
      if (!p.unparsable && unknown_units_.insert(name).second) {
        ctx_.diagnostics.Add(model::Diag::ncu_rep_unit_unknown, fmt::format("{}: no unit known for {}; value kept without a unit",
                                                                 ctx_.source, model::Excerpt(name)));
      }
      p.unit_known = !p.value.has_value();
      return;
    }
    p.raw_unit = unit.base_unit;
    p.unit = unit.info.canonical;
    p.dimension = unit.info.dimension;
    if (p.value) *p.value *= unit.info.scale;
  }

  // Results of one ncu run list the same metrics in the same order; saying
  // so lets the aggregators match them by position instead of by name.
  std::uint64_t LayoutOf(const std::vector<model::Metric>& metrics) {
    const bool same =
        metrics.size() == layout_names_.size() &&
        std::equal(metrics.begin(), metrics.end(), layout_names_.begin(), [](const model::Metric& m, const auto& kept) {
          return m.name == kept.second && m.section == kept.first;
        });
    if (!same) {
      layout_names_.clear();
      for (const auto& m : metrics) layout_names_.emplace_back(m.section, m.name);
      layout_ = model::NewMetricLayout();
    }
    return layout_;
  }

  static model::DeviceInfo ToDeviceInfo(const ncurep::Device& d) {
    model::DeviceInfo out;
    out.id = d.id ? std::to_string(*d.id) : std::string();
    out.name = d.name;
    auto integer = [&](std::string_view a) -> std::optional<std::int64_t> {
      const ncurep::Value* v = d.Find(a);
      if (v == nullptr || !v->number || !std::isfinite(*v->number)) return std::nullopt;
      return static_cast<std::int64_t>(*v->number);
    };
    auto first = [&](std::string_view a, std::string_view b) -> std::optional<double> {
      for (auto name : {a, b}) {
        if (auto v = integer(name)) return static_cast<double>(*v);
      }
      return std::nullopt;
    };
    if (const ncurep::Value* v = d.Find("display_name"); v && v->text && out.name.empty()) out.name = *v->text;
    out.sm_count = integer("multiprocessor_count");
    out.compute_capability_major = integer("compute_capability_major");
    out.compute_capability_minor = integer("compute_capability_minor");
    out.sm_clock_max_khz = first("max_gpu_frequency_khz", "clock_rate");
    out.memory_clock_max_khz = first("max_mem_frequency_khz", "memory_clock_rate");
    out.memory_bus_width_bits = integer("global_memory_bus_width");
    if (!out.memory_bus_width_bits) out.memory_bus_width_bits = integer("fb_bus_width");
    out.l2_cache_bytes = integer("l2_cache_size");
    out.total_memory_bytes = integer("total_memory");
    for (const auto& a : d.attributes) out.attributes.emplace_back(a.name, ValueText(a.value));
    return out;
  }

  ImportContext& ctx_;
  std::set<std::string> unknown_units_;
  std::unordered_map<std::string, UnitSlot> units_;
  std::vector<std::pair<std::string, std::string>> layout_names_;  // section, name
  std::unordered_map<std::string, std::string> section_of_;
  std::uint64_t layout_ = 0;
};

}  // namespace

Status ImportNcuReport(const fs::path& file, ImportContext& ctx) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  if (ec || !in) return MakeError(ExitStatus::kInput, ctx.source + ": cannot be opened for reading");
  LaunchBuilder builder(ctx);
  auto summary = ncurep::Read(in, size, ctx.source, builder, ctx.diagnostics);
  if (!summary.ok()) return std::move(summary).error();
  if (summary->extra_entries > 0) {
    ctx.diagnostics.Add(model::Diag::ncu_rep_entries_skipped, fmt::format("{}: {} entries of a kind this reader does not read (ncu 2026's CUDA graph "
                                    "descriptions); skipped",
                                    ctx.source, summary->extra_entries));
  }
  return OkStatus();
}

}  // namespace llmpo::ingest
