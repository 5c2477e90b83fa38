#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "src/report/findings_markdown.h"
#include "src/report/kernels_report.h"
#include "src/report/md_table.h"
#include "src/report/source_labels.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

// Well-known metrics shown per kernel when the input has them.
struct KeyMetric {
  std::string_view title;
  std::span<const std::string_view> names;
};
constexpr std::array kKeyMetrics = {
    KeyMetric{"SM throughput %", analysis::kSmThroughputPct},
    KeyMetric{"DRAM throughput %", analysis::kDramThroughputPct},
    KeyMetric{"Achieved occupancy %", analysis::kAchievedOccupancyPct},
    KeyMetric{"Registers/thread", analysis::kRegistersPerThread},
};

std::optional<double> FindMetric(const analysis::KernelAggregate& k, const KeyMetric& key) {
  return k.FirstValue(key.names);
}

void KernelTable(std::string& out, const std::vector<const analysis::KernelAggregate*>& kernels, std::size_t top_k) {
  MdTable table({{"#", true, true},
                 {"Kernel", false, true},
                 {"Calls", true, true},
                 {"Total (ms)", true},
                 {"Mean (ms)", true},
                 {"Min (ms)", true},
                 {"Max (ms)", true},
                 {"Device"},
                 {"Process"}});
  for (std::size_t i = 0; i < kernels.size() && i < top_k; ++i) {
    const auto& k = *kernels[i];
    const bool timed = k.timed_calls > 0;
    table.Row({std::to_string(i + 1), MdCell(k.name), std::to_string(k.calls), timed ? MsText(k.total_ns) : "n/a",
               timed ? MsText(k.MeanNs()) : "n/a", k.min_ns ? MsText(*k.min_ns) : "n/a",
               k.max_ns ? MsText(*k.max_ns) : "n/a", k.device.empty() ? "n/a" : MdCell(k.device, 40),
               k.process.Known() ? MdCell(k.process.Label(), 40) : "n/a"});
  }
  out += table.Render();
}

void KeyMetricsTable(std::string& out, const std::vector<const analysis::KernelAggregate*>& kernels,
                     std::size_t top_k) {
  std::vector<const KeyMetric*> present;
  for (const auto& key : kKeyMetrics) {
    if (std::any_of(kernels.begin(), kernels.end(), [&](auto* k) { return FindMetric(*k, key).has_value(); })) {
      present.push_back(&key);
    }
  }
  if (present.empty()) return;
  out +=
      "\n### Key metrics\n\nOver each kernel's launches, each metric by its aggregation rule (docs/import.md, "
      "\"Aggregation\": throughput % is a mean weighted by launch duration).\n\n| # | Kernel |";
  for (auto* key : present) out += fmt::format(" {} |", key->title);
  out += "\n|---:|---|";
  for (std::size_t i = 0; i < present.size(); ++i) out += "---:|";
  out += "\n";
  for (std::size_t i = 0; i < kernels.size() && i < top_k; ++i) {
    out += fmt::format("| {} | {} |", i + 1, MdCell(kernels[i]->name));
    for (auto* key : present) {
      auto v = FindMetric(*kernels[i], *key);
      out += v ? fmt::format(" {:.2f} |", *v) : " n/a |";
    }
    out += "\n";
  }
}

// kernels_combined: the timeline's kernels per innermost region, with the
// ncu metrics of the launches paired with them.
void RegionKernelsMd(std::string& out, const std::vector<analysis::RegionKernel>& rows, std::size_t top_k) {
  if (rows.empty()) return;
  out +=
      "\n## Kernels per region\n\nThe innermost region each launch ran in; calls and times from the timeline, "
      "metrics from ncu: `by_launch` from the results paired with these launches in launch order, `by_name` "
      "ncu's aggregate over the kernel's name (Data quality says why).\n\n";
  out += "| Region | Kernel | Calls | Total (ms) | ncu match |";
  for (const auto& key : kKeyMetrics) out += fmt::format(" {} |", key.title);
  out += "\n|---|---|---:|---:|---|";
  for (std::size_t i = 0; i < kKeyMetrics.size(); ++i) out += "---:|";
  out += "\n";
  std::size_t shown = 0;
  for (const auto& row : rows) {
    if (shown++ == top_k * 4) break;
    std::string region;
    for (const auto& label : row.region) region += (region.empty() ? "" : " / ") + label;
    const auto& k = row.kernel;
    out += fmt::format("| {} | {} | {} | {} | {} |", MdCell(region.empty() ? "(none)" : region), MdCell(k.name),
                       k.calls, k.timed_calls ? MsText(k.total_ns) : "n/a",
                       k.metrics.empty() ? "none"
                       : row.by_launch   ? "by_launch"
                                         : "by_name");
    for (const auto& key : kKeyMetrics) {
      auto v = FindMetric(k, key);
      out += v ? fmt::format(" {:.2f} |", *v) : " n/a |";
    }
    out += "\n";
  }
  if (rows.size() > top_k * 4) out += fmt::format("\n{} more row(s) in the JSON.\n", rows.size() - top_k * 4);
}

// `k` points into report.kernels, whose rows carry their insight.
const KernelInsight* InsightOf(const KernelsReport& /*report*/, const analysis::KernelAggregate* k) {
  const auto& row = static_cast<const KernelRow&>(*k);
  return row.insight ? &*row.insight : nullptr;
}

std::string PctText(const std::optional<double>& v) { return v ? fmt::format("{:.3g}", *v) : "n/a"; }

void AnalysisTable(std::string& out, const KernelsReport& report,
                   const std::vector<const analysis::KernelAggregate*>& kernels, std::size_t top_k) {
  if (std::none_of(report.kernels.begin(), report.kernels.end(), [](const KernelRow& r) { return r.insight; })) {
    return;
  }
  out +=
      "\n### Category and bound class\n\nBound class as ncu's SOLBottleneck rule decides it (docs/analysis.md): "
      "SM and memory throughput, % of peak.\n\n";
  MdTable table({{"#", true, true},
                 {"Kernel", false, true},
                 {"Category", false, true},
                 {"Bound"},
                 {"SM %", true},
                 {"Memory %", true},
                 {"Busiest memory"},
                 {"Why"}});
  for (std::size_t i = 0; i < kernels.size() && i < top_k; ++i) {
    const KernelInsight* in = InsightOf(report, kernels[i]);
    if (in == nullptr) continue;
    const auto& b = in->bound;
    table.Row({std::to_string(i + 1), MdCell(kernels[i]->name, 80), in->category,
               std::string(analysis::ToString(b.cls)), PctText(b.sm_pct), PctText(b.memory_pct),
               b.unit.empty() ? "n/a" : b.unit, MdCell(b.reason, 160)});
  }
  out += table.Render();
}

void RooflineTable(std::string& out, const KernelsReport& report,
                   const std::vector<const analysis::KernelAggregate*>& kernels, std::size_t top_k) {
  std::string rows;
  for (std::size_t i = 0; i < kernels.size() && i < top_k; ++i) {
    const KernelInsight* in = InsightOf(report, kernels[i]);
    if (in == nullptr) continue;
    for (const auto& p : in->roofline.precisions) {
      for (const auto& l : p.levels) {
        rows += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", i + 1, MdCell(kernels[i]->name, 60),
                            p.precision == "tensor" ? fmt::format("tensor ({})", p.path) : p.precision, l.level,
                            PctText(p.achieved_per_s ? std::optional(*p.achieved_per_s / 1e9) : std::nullopt),
                            PctText(l.intensity), PctText(l.ridge), PctText(l.pct_of_roof),
                            l.missing.empty() ? "" : MdCell(l.missing, 120));
      }
    }
  }
  if (rows.empty()) return;
  out +=
      "\n### Roofline\n\nAchieved work (GFLOP/s; tensor: Gop/s), arithmetic intensity and ridge (FLOP/byte), "
      "% of the roof at that intensity.\n\n| # | Kernel | Precision | Level | Achieved | Intensity | Ridge | % of "
      "roof | Missing |\n|---:|---|---|---|---:|---:|---:|---:|---|\n";
  out += rows;
}

// "GPU 0: Tesla T4 (compute capability 7.5, 40 SMs, ...)": what the
// input says of each GPU, the figures it does not give left out.
std::string DeviceText(const model::DeviceInfo& d) {
  std::vector<std::string> facts;
  if (d.compute_capability_major && d.compute_capability_minor) {
    facts.push_back(fmt::format("compute capability {}.{}", *d.compute_capability_major, *d.compute_capability_minor));
  }
  if (d.sm_count) facts.push_back(fmt::format("{} SMs", *d.sm_count));
  if (d.sm_clock_max_khz) facts.push_back(fmt::format("max SM clock {:.0f} MHz", *d.sm_clock_max_khz / 1e3));
  if (d.memory_clock_max_khz)
    facts.push_back(fmt::format("max memory clock {:.0f} MHz", *d.memory_clock_max_khz / 1e3));
  if (d.memory_bus_width_bits) facts.push_back(fmt::format("{}-bit memory bus", *d.memory_bus_width_bits));
  if (d.l2_cache_bytes) facts.push_back(fmt::format("L2 {:.4g} MiB", *d.l2_cache_bytes / 1048576.0));
  if (d.total_memory_bytes) facts.push_back(fmt::format("memory {:.4g} GiB", *d.total_memory_bytes / 1073741824.0));
  std::string text =
      fmt::format("GPU {}: {}", d.id.empty() ? "?" : d.id, MdCell(d.name.empty() ? "unnamed" : d.name, 120));
  if (!facts.empty()) text += fmt::format(" ({})", fmt::join(facts, ", "));
  return text;
}

void DevicesMd(std::string& out, const std::vector<model::DeviceInfo>& devices) {
  if (devices.empty()) return;
  for (const auto& d : devices) out += "- " + DeviceText(d) + "\n";
  out += "\n";
}

void SourceSection(std::string& out, const SourceInfo& source, const std::string& label, const KernelsReport& report,
                   std::size_t top_k) {
  std::vector<const analysis::KernelAggregate*> kernels;
  double total = 0;
  std::uint64_t calls = 0, timed = 0;
  for (const auto& k : report.kernels) {
    if (k.source != source.path) continue;
    kernels.push_back(&k);
    total += k.total_ns;
    calls += k.calls;
    timed += k.timed_calls;
  }
  // Unknown, not 0, when no launch of the input has a duration.
  std::string kernel_time = timed > 0 ? MsText(total) + " ms" : "n/a";
  if (timed > 0 && timed < calls) kernel_time += fmt::format(" ({} of {} launches timed)", timed, calls);
  const auto note = report.source_notes.find(source.path);
  if (kernels.empty() && note != report.source_notes.end() && source.ok()) {
    out += fmt::format("\n## {}\n\nFormat: {}. {}\n", MdCell(label, 200), source.format, note->second);
    return;
  }
  if (kernels.empty() && source.ok()) {  // a summary or export without kernels: no empty counts
    out += fmt::format("\n## {}\n\nFormat: {}. No kernel records in this input.\n", MdCell(label, 200), source.format);
    if (!source.devices.empty()) out += "\n";
    DevicesMd(out, source.devices);
    return;
  }
  out += fmt::format("\n## {}\n\nFormat: {}. Kernels: {}; launches: {}; GPU kernel time: {}.", MdCell(label, 200),
                     source.format, kernels.size(), calls, kernel_time);
  if (kernels.size() > top_k) out += fmt::format(" Top {} shown; kernels.json has all.", top_k);
  out += "\n\n";
  DevicesMd(out, source.devices);
  if (kernels.empty()) {
    out += source.ok() ? "No kernel records in this input.\n" : fmt::format("Not imported: {}\n", source.StatusText());
    return;
  }
  KernelTable(out, kernels, top_k);
  KeyMetricsTable(out, kernels, top_k);
  AnalysisTable(out, report, kernels, top_k);
  RooflineTable(out, report, kernels, top_k);
  FindingsTable(out, kernels, top_k);
}

void LaunchOverheadMd(std::string& out, const std::vector<analysis::FromInput<model::LaunchOverheadRow>>& rows,
                      std::size_t top_k) {
  out +=
      "\n## Launch overhead (timelines, nsys cuda_kern_exec_sum)\n\nPer launch, as nsys' cuda_kern_exec_sum "
      "defines them: API = time in the launch call; queue = kernel start - call end, over the launches whose kernel "
      "started after the call returned (\"Queued\" of them); kernel = time in the kernel. From: `timeline` "
      "(computed from each launch and its call) or `cuda_kern_exec_sum`.\n\n| Kernel | API | From | Launches | API "
      "mean (ms) | API median (ms) | API max (ms) | Queued | Queue mean (ms) | Queue median (ms) | Queue max (ms) | "
      "Kernel mean (ms) |\n";
  out += "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < rows.size() && i < top_k; ++i) {
    const auto& row = rows[i].row;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", MdCell(row.kernel_name, 80),
                       MdCell(row.api_name), model::ToString(row.from), row.count, MsText(row.api_mean_ns),
                       MsText(row.api_median_ns), MsText(row.api_max_ns),
                       row.queue_count ? std::to_string(*row.queue_count) : "n/a", MsText(row.queue_mean_ns),
                       MsText(row.queue_median_ns), MsText(row.queue_max_ns), MsText(row.kernel_mean_ns));
  }
}

// The CUDA API table. Rows of several ranks (each rank's calls apart) get a
// Rank column and are ranked by total over all ranks; Time % stays each
// row's share of its own rank's API time.
void ApiCallsMd(std::string& out, const analysis::RuntimeSummaries& r, std::size_t top_k) {
  const bool ranked = std::any_of(r.api_calls.begin(), r.api_calls.end(), [](const auto& a) { return a.row.rank; });
  std::vector<const model::ApiSummaryRow*> rows;
  for (const auto& a : r.api_calls) rows.push_back(&a.row);
  if (ranked) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
      return a->time.total_ns.value_or(0) > b->time.total_ns.value_or(0);
    });
  }
  out += "\n## CUDA API calls (nsys cuda_api_sum, or summed from a timeline's calls)\n\n| API |";
  out += ranked ? " Rank |" : "";
  out += " Calls | Total (ms) | Mean (ms) | Median (ms) | Max (ms) | Time % |\n";
  out += ranked ? "|---|---:|---:|---:|---:|---:|---:|---:|\n" : "|---|---:|---:|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < rows.size() && i < top_k; ++i) {
    const model::ApiSummaryRow& row = *rows[i];
    const std::string rank = !ranked ? "" : (row.rank ? fmt::format(" {} |", *row.rank) : " n/a |");
    out += fmt::format("| {} |{} {} | {} | {} | {} | {} | {} |\n", MdCell(row.name), rank, row.calls,
                       MsText(row.time.total_ns), MsText(row.time.mean_ns), MsText(row.time.median_ns),
                       MsText(row.time.max_ns), row.time_pct ? fmt::format("{:.1f}", *row.time_pct) : "n/a");
  }
}

void RuntimeSections(std::string& out, const analysis::RuntimeSummaries& r, std::size_t top_k) {
  if (!r.api_calls.empty()) ApiCallsMd(out, r, top_k);
  if (!r.gpu_ops.empty()) {
    out += "\n## GPU memory operations (nsys cuda_gpu_mem_time_sum / _size_sum)\n\n";
    out += "| Operation | Count | Total (ms) | Mean (ms) | Total (bytes) |\n|---|---:|---:|---:|---:|\n";
    for (const auto& [source, row] : r.gpu_ops) {
      const model::TimeStats t = row.time.value_or(model::TimeStats{});
      out += fmt::format("| {} | {} | {} | {} | {} |\n", MdCell(row.operation), row.count, MsText(t.total_ns),
                         MsText(t.mean_ns), row.total_bytes ? fmt::format("{:.0f}", *row.total_bytes) : "n/a");
    }
  }
  if (!r.launch_overhead.empty()) LaunchOverheadMd(out, r.launch_overhead, top_k);
}

// Each input's full path, once; the sections and tables below use the label.
void SourcesMd(std::string& out, const std::vector<SourceInfo>& sources,
               const std::map<std::string, std::string>& labels) {
  if (sources.empty()) return;
  out +=
      "\n## Sources\n\nThe sections and tables below name each input by its label.\n\n| Input | Path | Format |\n"
      "|---|---|---|\n";
  std::set<std::string> listed;
  for (const auto& s : sources) {
    if (!listed.insert(s.path).second) continue;
    out += fmt::format("| {} | {} | {} |\n", MdCell(LabelOf(labels, s.path), 200), MdCell(s.path, 1000), s.format);
  }
}

void BusyMd(std::string& out, const std::vector<analysis::DeviceBusy>& busy,
            const std::map<std::string, std::string>& labels) {
  if (busy.empty()) return;
  out +=
      "\n## GPU busy and idle time (timelines)\n\nBusy: the union of kernel and copy intervals on the device; span: "
      "first start to last end; idle: span - busy.\n\n| Input | Device | Kernels | Copies | Span (ms) | Busy (ms) | "
      "Idle (ms) | Idle % |\n|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& b : busy) {
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n", MdCell(LabelOf(labels, b.source), 80), MdCell(b.device, 40),
        b.kernels, b.copies, MsText(b.span_ns), MsText(b.busy_ns), MsText(b.idle_ns),
        b.idle_pct ? fmt::format("{:.1f}", *b.idle_pct) : "n/a" + (b.missing.empty() ? "" : " (" + b.missing + ")"));
  }
}

}  // namespace

std::string KernelsMarkdown(const KernelsReport& report, std::size_t top_k) {
  std::string out = "# Kernel Summary\n\nTimes in milliseconds. Per input: kernels by total GPU time, largest first.\n";
  const auto labels = SourceLabels(report.sources);
  SourcesMd(out, report.sources, labels);
  for (const auto& source : report.sources) SourceSection(out, source, LabelOf(labels, source.path), report, top_k);
  RuntimeSections(out, report.runtime, top_k);
  BusyMd(out, report.gpu_busy, labels);
  RegionKernelsMd(out, report.region_kernels, top_k);
  RankedActionsMd(out, report.ranked);
  DataQualityMd(out, report.diagnostics);
  return out;
}

}  // namespace llmpo::report
