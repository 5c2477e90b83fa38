#include "src/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "src/report/html_assets.h"
#include "src/report/html_charts.h"
#include "src/report/html_sections.h"
#include "src/report/html_table_columns.h"
#include "src/report/html_text.h"
#include "src/report/phases_report.h"
#include "src/report/source_labels.h"
#include "src/report/stragglers_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using nlohmann::ordered_json;

ordered_json Ms(const std::optional<double>& ns) {
  if (!ns) return nullptr;
  return *ns / 1e6;
}

std::string Pct(double v) { return fmt::format("{:.1f} %", v); }

std::string Absent(std::string_view text) { return fmt::format("<p class=\"absent\">{}</p>\n", text); }

// An input as tables name it: its label (the sources list has the path).
std::string Label(const HtmlReportInput& in, const std::string& path) {
  return LabelOf(SourceLabels(in.kernels->sources), path);
}

std::string Tile(std::string_view value, std::string_view label) {
  return fmt::format("<div class=\"tile\"><div class=\"value\">{}</div><div class=\"label\">{}</div></div>\n", value,
                     label);
}

// Each device's busy and idle time over its own span (KernelsReport::gpu_busy,
// as kernels.md lists them): a union over devices would be no GPU's time.
std::string DeviceIdleTile(const std::vector<analysis::DeviceBusy>& devices) {
  std::optional<double> low, high;
  for (const auto& d : devices) {
    if (!d.idle_pct) continue;
    low = std::min(low.value_or(*d.idle_pct), *d.idle_pct);
    high = std::max(high.value_or(*d.idle_pct), *d.idle_pct);
  }
  if (!low) return Tile("n/a", "GPU busy vs idle per device: not known");
  return Tile(fmt::format("{:.1f} to {:.1f} %", *low, *high),
              fmt::format("GPU idle per device, of each device's own span ({} devices; table below)", devices.size()));
}

std::string DeviceBusyTable(const HtmlReportInput& in, const std::vector<analysis::DeviceBusy>& devices) {
  std::string out =
      "<h3>GPU busy and idle per device</h3><table class=\"plain\"><thead><tr><th>Input</th><th>Device</th>"
      "<th>Span (ms)</th><th>Busy (ms)</th><th>Idle (ms)</th><th>Idle</th></tr></thead><tbody>\n";
  const auto labels = SourceLabels(in.kernels->sources);  // once: a row per rank of thousands of rank inputs
  for (const auto& d : devices) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        HtmlText(LabelOf(labels, d.source)), HtmlText(d.device), MsText(d.span_ns),
        d.busy_ns ? MsText(*d.busy_ns) : "n/a", d.idle_ns ? MsText(*d.idle_ns) : "n/a",
        d.idle_pct ? Pct(*d.idle_pct) : "n/a");
  }
  return out + "</tbody></table>\n";
}

// Several devices in the run: in the drawn timeline, or among the timing
// inputs' devices (rank files and an archive's members: the timeline is the
// first input's, one rank, while gpu_busy has every rank's devices).
bool SeveralDevices(const HtmlReportInput& in) {
  return (in.timeline != nullptr && in.timeline->devices > 1) || in.kernels->gpu_busy.size() > 1;
}

std::string Tiles(const HtmlReportInput& in) {
  const RunModel& run = *in.run;
  std::string out = "<div class=\"tiles\">\n";
  out += Tile(run.times_from.empty() ? "n/a" : MsText(run.gpu_kernel_ns) + " ms",
              run.times_from.empty() ? "GPU kernel time: no kernel durations in these inputs"
                                     : "GPU kernel time, from " + HtmlText(Label(in, run.times_from)));
  // Without an input with kernels the counts are unknown, not 0 (a region
  // report from nvtx_kern_sum can still show kernels per range).
  const bool kernels_known = !run.times_from.empty();
  out += Tile(kernels_known ? fmt::format("{}", run.launches) : "n/a", "kernel launches");
  out += Tile(kernels_known ? fmt::format("{}", run.distinct_kernels) : "n/a", "distinct kernels");
  out += Tile(run.region_count ? fmt::format("{}", *run.region_count) : "n/a", "NVTX regions (aggregate)");
  const auto* t = in.timeline;
  if (SeveralDevices(in)) {
    out += DeviceIdleTile(in.kernels->gpu_busy);
  } else if (t != nullptr && t->gpu_busy_ns) {
    const double span = static_cast<double>(t->end_ns - t->start_ns);
    out += Tile(MsText(*t->gpu_busy_ns) + " ms", fmt::format("GPU busy (any stream) of {} ms traced", MsText(span)));
    out += Tile(MsText(*t->gpu_idle_ns) + " ms",
                fmt::format("GPU idle ({:.1f} % of the traced span)", span > 0 ? 100 * *t->gpu_idle_ns / span : 0.0));
  } else {
    const char* why = t == nullptr      ? "GPU busy vs idle: not known (no GPU timeline in these inputs)"
                      : t->gpu_ops == 0 ? "GPU busy vs idle: not known (no GPU work in this timeline)"
                                        : "GPU busy vs idle: not known (the timeline's operations came too far out "
                                          "of time order)";
    out += Tile("n/a", why);
  }
  return out + "</div>\n";
}

// The largest top-level regions (PageModel::top_stages); the rest are
// counted in one line.
std::string TopRegions(const RunModel& run, const PageModel& page) {
  if (run.stages.empty()) return Absent("No NVTX regions in these inputs: nothing to split the time by phase.");
  std::string out =
      "<table class=\"plain\"><thead><tr><th>Top-level region</th><th>GPU kernel time (ms)</th>"
      "<th>Share of top-level regions</th><th>Launches</th><th>From</th></tr></thead><tbody>\n";
  for (const std::size_t index : page.top_stages) {
    const StageRow& s = run.stages[index];
    // Without GPU kernel time the model's share is 0 by construction: not a share.
    const std::string share = s.gpu_kernel_ns && s.share_known
                                  ? fmt::format(
                                        "<span class=\"meter\" style=\"width:{:.1f}px\"></span> "
                                        "{:.1f} %",
                                        s.share_pct, s.share_pct)
                                  : "n/a";
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td>{}</td></tr>\n",
        HtmlText(s.label), MsText(s.gpu_kernel_ns), share, CountText(s.launches),
        s.from.empty() ? "n/a" : HtmlText(s.from));
  }
  out += "</tbody></table>\n";
  const bool shares = run.stages[page.top_stages.front()].share_known;
  if (run.stages.size() > page.top_stages.size()) {
    out +=
        fmt::format("<p class=\"note\">The {} largest of {} top-level regions; the other {} {} (region table).</p>\n",
                    page.top_stages.size(), run.stages.size(), run.stages.size() - page.top_stages.size(),
                    shares ? fmt::format("hold {:.1f} % together", page.other_stages_share_pct) : "are not shown");
  }
  if (!shares) {
    out +=
        "<p class=\"note\">No shares: these regions come from an nsys summary, which does not say how the "
        "ranges nest, so nested ranges are listed as top-level and their times overlap.</p>\n";
  }
  return out;
}

std::string Mfu(const RunModel& run) {
  if (!run.mfu_configured) return "";
  if (run.mfu_without_regions) return Absent("Model FLOPs are configured, but these inputs have no NVTX regions.");
  std::string out =
      "<h3>Model FLOPs utilisation</h3><table class=\"plain\"><thead><tr><th>Region</th><th>FLOPs</th>"
      "<th>GPU kernel time (ms)</th><th>Achieved TFLOP/s</th><th>MFU</th></tr></thead><tbody>\n";
  for (const auto& m : run.mfu) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{:.4g}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        HtmlText(m.region_path), m.flops, m.missing.empty() ? MsText(m.gpu_kernel_ns) : HtmlText(m.missing),
        m.achieved_tflops ? fmt::format("{:.2f}", *m.achieved_tflops) : "n/a",
        m.mfu_pct ? fmt::format("{:.1f} %", *m.mfu_pct) : "n/a (no peak_tflops)");
  }
  return out + "</tbody></table>\n";
}

std::string CategoryTable(const RunModel& run) {
  if (run.category_ns.empty()) return Absent("No kernel categories in this input.");
  std::string out =
      "<table class=\"categories\"><thead><tr><th>Category</th><th>GPU kernel time (ms)</th><th>Share</th></tr>"
      "</thead><tbody>\n";
  for (const auto& [category, ns] : run.category_ns) {
    out += fmt::format(
        "<tr><td><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        NameColour(category), HtmlText(category), MsText(ns),
        run.gpu_kernel_ns > 0 ? Pct(100 * ns / run.gpu_kernel_ns) : std::string("n/a"));
  }
  return out + "</tbody></table>\n";
}

// Each input's full path, once; tables elsewhere name it by its label.
std::string SourcesTable(const HtmlReportInput& in) {
  const auto labels = SourceLabels(in.kernels->sources);
  std::string out =
      "<h3>Sources</h3><table class=\"plain\" id=\"sources\"><thead><tr><th>Input</th><th>Path</th><th>Format</th>"
      "<th>Status</th></tr></thead><tbody>\n";
  for (const auto& s : in.kernels->sources) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", HtmlText(LabelOf(labels, s.path)),
                       HtmlText(s.path), HtmlText(s.format), HtmlText(s.StatusText()));
  }
  return out + "</tbody></table>\n";
}

std::string Overview(const HtmlReportInput& in) {
  std::string out = "<section id=\"overview\"><h2>Overview: where the time goes</h2>\n";
  out += SourcesTable(in);
  out += Tiles(in);
  if (SeveralDevices(in)) out += DeviceBusyTable(in, in.kernels->gpu_busy);
  out += "<h3>Top-level regions</h3>\n" + TopRegions(*in.run, *in.page);
  out += "<h3>Time per kernel category</h3>\n" + CategoryTable(*in.run);
  out += Mfu(*in.run);
  out += RankedActionsHtml(in.run->ranked, in.run->recommendations);
  return out + "</section>\n";
}

// The region trees drawn: the aggregate, or each scope when it is off.
std::vector<std::pair<std::string, const std::vector<RegionEntry>*>> Trees(const RegionsReport& r) {
  std::vector<std::pair<std::string, const std::vector<RegionEntry>*>> out;
  if (r.aggregate) {
    out.emplace_back("all processes and devices", &*r.aggregate);
    return out;
  }
  for (const auto& s : r.scopes)
    out.emplace_back(fmt::format("process {}, device {}", s.process, s.device), &s.regions);
  return out;
}

std::string RegionsSection(const HtmlReportInput& in) {
  std::string out = "<section id=\"regions\"><h2>NVTX region tree</h2>\n";
  if (in.regions == nullptr || Trees(*in.regions).empty()) {
    return out + "<div data-chart=\"regions\">" + Absent("No NVTX regions in these inputs.") + "</div></section>\n";
  }
  out +=
      "<p class=\"note\">Click a block to zoom into it, click the top row or press Escape to zoom out; hover for "
      "its numbers.</p>\n";
  for (const auto& [scope, entries] : Trees(*in.regions)) {
    if (entries->empty()) {
      out += "<div data-chart=\"regions\">" + Absent("No region in " + HtmlText(scope) + ".") + "</div>\n";
      continue;
    }
    const auto q = IcicleQuantity(*entries);
    const auto icicle = IcicleSvg(*entries, q);
    out += fmt::format("<h3>{}: widths are {}</h3>\n<div class=\"zoomable\">{}</div>\n", HtmlText(scope),
                       QuantityMeaning(q), icicle.svg);
    if (icicle.hidden > 0) {
      out += fmt::format(
          "<p class=\"note\">Aggregated: {} of {} regions are narrower than {:.3g} % of the width (or have no value) "
          "and "
          "are not drawn; their time is inside their parent's block. The region table lists every region.</p>\n",
          icicle.hidden, entries->size(), 100 * kIcicleMinShare);
    }
  }
  return out + "</section>\n";
}

std::string KernelsSection(const HtmlReportInput& in) {
  std::string out = "<section id=\"kernels\"><h2>Top kernels</h2>\n";
  if (in.run->top_kernels.empty()) {
    out += "<div data-chart=\"kernels\">" + Absent("No kernels in these inputs.") + "</div>\n";
  } else {
    out += fmt::format(
        "<p class=\"note\">The {} kernels with the most GPU kernel time in {}, merged over processes and devices. "
        "Colours are kernel categories (the overview's table).</p>\n",
        in.run->top_kernels.size(), HtmlText(Label(in, in.run->times_from)));
    out += KernelBarsSvg(in.run->top_kernels);
  }
  out += "<h3>Roofline</h3>\n";
  if (in.run->roofline.empty()) {
    out += "<div class=\"roofline\" data-chart=\"roofline\">" +
           Absent(
               "No roofline data in this input: it needs FLOP counts and DRAM bytes per kernel (ncu) and the "
               "device's peaks.") +
           "</div>\n";
  } else {
    out += fmt::format(
        "<p class=\"note\">{} points: one per kernel and precision with work, sized by the kernel's GPU time; lines "
        "are each precision's compute roof and the DRAM bandwidth slope (docs/analysis.md). Hover for the "
        "numbers.</p>\n",
        in.run->roofline.size());
    out += RooflineSvg(in.run->roofline);
  }
  return out + "</section>\n";
}

// Says how many rows the timeline leaves out (kTimelineMaxRows) and where
// they all are; empty when it draws every row.
std::string RowsLeftOut(const TimelineOverview& t) {
  if (t.rows_left_out == 0) return "";
  return fmt::format(
      "<p class=\"note\" id=\"timeline-rows-left-out\">The {} busiest rows are drawn; {} more rows (device and "
      "stream) with less GPU busy time are left out. gpu_breakdown.md (PyTorch traces) and kernels.json have them "
      "all.</p>\n",
      t.rows.size(), t.rows_left_out);
}

std::string TimelineSection(const HtmlReportInput& in) {
  std::string out = "<section id=\"timeline\"><h2>Timeline</h2>\n";
  if (in.timeline == nullptr || in.timeline->rows.empty()) {
    out += Absent(in.timeline == nullptr ? "No timeline in these inputs." : "No GPU work in this timeline.");
  } else {
    out += fmt::format(
        "<p class=\"note\">GPU busy time per stream, from {}, in {} bins of {} ms (darker: busier; times from the "
        "first bin's start); hover a bin for its numbers.</p>\n",
        HtmlText(Label(in, in.timeline->source)), in.timeline->bins, MsText(in.timeline->bin_ns));
    out += TimelineSvg(*in.timeline);
    out += RowsLeftOut(*in.timeline);
  }
  if (!in.trace_json.empty()) {
    out += fmt::format(
        "<p>Every event: <a href=\"{0}\">{0}</a>; open it in <b>ui.perfetto.dev</b> (Open trace file) or "
        "chrome://tracing.</p>\n",
        HtmlText(in.trace_json));
  }
  return out + "</section>\n";
}

std::string TableSection(std::string_view id, std::string_view title, std::string_view note) {
  return fmt::format(
      "<section id=\"{0}\"><h2>{1}</h2>\n<p class=\"note\">{2}</p>\n"
      "<input type=\"search\" class=\"filter\" data-filter-for=\"{0}-t\" placeholder=\"filter rows\">\n"
      "<span class=\"count\" id=\"{0}-t-count\"></span>\n"
      "<div class=\"scroll\"><table class=\"data\" id=\"{0}-t\" data-table=\"{0}\"></table></div></section>\n",
      id, title, note);
}

ordered_json Column(std::string_view key, std::string_view label, std::string_view type) {
  return ordered_json{{"key", key}, {"label", label}, {"type", type}};
}

// The kernel table's rows, as PageModel::kernel_rows lists them.
ordered_json KernelTable(const KernelsReport& k, const PageModel& page) {
  const auto labels = SourceLabels(k.sources);
  ordered_json rows = ordered_json::array();
  for (const std::size_t index : page.kernel_rows) {
    const analysis::KernelAggregate* kernel = &k.kernels[index];
    rows.push_back(ordered_json::array(
        {kernel->name, kernel->calls,
         kernel->timed_calls ? ordered_json(kernel->total_ns / 1e6) : ordered_json(nullptr),
         kernel->timed_calls ? ordered_json(kernel->MeanNs() / 1e6) : ordered_json(nullptr), Ms(kernel->min_ns),
         Ms(kernel->max_ns), kernel->device, kernel->process.Label(), LabelOf(labels, kernel->source)}));
  }
  return ordered_json{
      {"columns",
       {Column("name", "Kernel", "text"), Column("calls", "Calls", "int"), Column("total", "Total (ms)", "ms"),
        Column("mean", "Mean (ms)", "ms"), Column("min", "Min (ms)", "ms"), Column("max", "Max (ms)", "ms"),
        Column("device", "Device", "text"), Column("process", "Process", "text"), Column("input", "Input", "text")}},
      {"rows", std::move(rows)}};
}

// One row per region; a scope column only when the trees are per scope.
ordered_json RegionTable(const RegionsReport* r, std::size_t shown, std::size_t& omitted) {
  ordered_json rows = ordered_json::array();
  std::size_t count = 0;
  omitted = 0;
  const auto trees = r != nullptr ? Trees(*r) : decltype(Trees(*r)){};
  const bool scoped = trees.size() > 1;
  for (const auto& [scope, entries] : trees) {
    for (const auto& e : *entries) {
      if (++count > shown) {
        ++omitted;
        continue;
      }
      const auto& g = *e.region;
      ordered_json row = ordered_json::array();
      if (scoped) row.push_back(scope);
      for (ordered_json v :
           {ordered_json(JoinPath(g.path)), ordered_json(std::string(analysis::ToString(g.kind))), Ms(g.total_ns),
            Ms(g.exclusive_ns), Ms(g.gpu_ops_ns), Ms(g.projected_ns), Ms(g.cpu_ns), Ms(g.cpu_exclusive_ns),
            g.KnownLaunches() ? ordered_json(*g.KnownLaunches()) : ordered_json(nullptr)}) {
        row.push_back(std::move(v));
      }
      rows.push_back(std::move(row));
    }
  }
  ordered_json columns = ordered_json::array();
  if (scoped) columns.push_back(Column("scope", "Scope", "text"));
  for (auto& c :
       {Column("path", "Region", "text"), Column("kind", "Kind", "text"), Column("total", "GPU kernel time (ms)", "ms"),
        Column("excl", "GPU kernel time, exclusive (ms)", "ms"), Column("gpu_ops", "GPU memory ops (ms)", "ms"),
        Column("projected", "Projected GPU time (ms)", "ms"), Column("cpu", "CPU range time (ms)", "ms"),
        Column("cpu_excl", "CPU range time, exclusive (ms)", "ms"), Column("launches", "Launches", "int")}) {
    columns.push_back(c);
  }
  return ordered_json{{"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

// The timeline's numbers, for programs reading the page (the chart draws them).
// With several devices in the run its busy and idle are null, as in the
// tiles: the drawn input's would read as the run's.
ordered_json TimelineData(const TimelineOverview* t, bool several_devices) {
  if (t == nullptr) return nullptr;
  ordered_json rows = ordered_json::array();
  for (const auto& r : t->rows) rows.push_back(ordered_json{{"label", r.label}, {"busy_ms", Ms(r.busy_total_ns)}});
  ordered_json data{{"source", t->source},
                    {"span_ms", static_cast<double>(t->end_ns - t->start_ns) / 1e6},
                    {"gpu_busy_ms", several_devices ? ordered_json(nullptr) : Ms(t->gpu_busy_ns)},
                    {"gpu_idle_ms", several_devices ? ordered_json(nullptr) : Ms(t->gpu_idle_ns)},
                    {"gpu_ops", t->gpu_ops},
                    {"bins", t->bins},
                    {"bin_ms", t->bin_ns / 1e6},
                    {"rows", std::move(rows)}};
  if (t->rows_left_out > 0) data["rows_left_out"] = t->rows_left_out;
  return data;
}

std::string DataQuality(const HtmlReportInput& in) {
  const model::Diagnostics& d = in.regions ? in.regions->diagnostics : in.kernels->diagnostics;
  std::string out = "<section id=\"data-quality\"><h2>Data quality</h2>\n";
  out += fmt::format("<p>Rows read: {}. Rows skipped: {}.</p>\n", d.rows_read(), d.rows_skipped());
  if (!d.entries().empty()) {
    out +=
        "<table class=\"plain\" id=\"diagnostics\"><thead><tr><th>Code</th><th>Severity</th><th>Count</th>"
        "<th>First example</th></tr></thead><tbody>\n";
    for (const auto& [code, e] : d.entries()) {
      out += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                         HtmlText(code), HtmlText(model::ToString(e.severity)), e.count, HtmlText(e.first_example));
    }
    out += "</tbody></table>\n";
  }
  std::vector<std::string> notes = d.notes();
  if (in.regions) notes.insert(notes.end(), in.regions->notes.begin(), in.regions->notes.end());
  if (!notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const auto& n : notes) out += "<li>" + HtmlText(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

// Links to the sections a page has only with their data.
std::string OptionalLinks(const HtmlReportInput& in, bool ncu_rows) {
  std::string out;
  if (ncu_rows) out += " <a href=\"#ncu-table\">Kernels under ncu</a>";
  if (in.phases) out += " <a href=\"#phases\">Phases</a>";
  if (in.gpu_breakdown != nullptr && !in.gpu_breakdown->breakdown.devices.empty())
    out += " <a href=\"#gpu-breakdown\">GPU breakdown</a>";
  if (in.stragglers != nullptr) out += " <a href=\"#stragglers\">Stragglers</a>";
  return out;
}

std::string Nav(const HtmlReportInput& in, bool ncu_rows) {
  std::string out =
      "<nav><a href=\"#overview\">Overview</a> <a href=\"#regions\">Regions</a> <a href=\"#kernels\">Kernels</a> "
      "<a href=\"#timeline\">Timeline</a> <a href=\"#kernel-table\">Kernel table</a> <a href=\"#region-table\">Region "
      "table</a> <a href=\"#data-quality\">Data quality</a>";
  out += OptionalLinks(in, ncu_rows);
  if (!in.trace_json.empty()) out += fmt::format(" <a href=\"{0}\">{0}</a>", HtmlText(in.trace_json));
  return out + "</nav>\n";
}

}  // namespace

void WriteHtmlReport(const HtmlReportInput& in, std::ostream& sink) {
  // Written a section at a time: a page of many ranks is tens of MB.
  const auto put = [&sink](const std::string& text) {
    sink.write(text.data(), static_cast<std::streamsize>(text.size()));
  };
  std::size_t regions_omitted = 0;
  const std::size_t kernels_omitted = in.page->kernels_omitted;
  ordered_json data{{"kernels", KernelTable(*in.kernels, *in.page)},
                    {"regions", RegionTable(in.regions, in.page->region_rows, regions_omitted)},
                    {"timeline", TimelineData(in.timeline, SeveralDevices(in))},
                    {"ncu", NcuKernelTableData(*in.kernels, *in.page)}};
  for (const char* table : {"kernels", "regions", "ncu"}) DropUnknownColumns(data[table]);
  const std::string name = HtmlText(in.run->run.run_name);
  put(
      fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<title>llm-perf-opt report: {}</title>\n<style>\n{}</style></head>\n<body>\n"
                  "<header><h1>llm-perf-opt report: {}</h1>\n",
                  kHtmlCsp, name, HtmlStyle(), name));
  if (!in.run->run.gpu.empty()) put(fmt::format("<p>GPU: {}</p>\n", HtmlText(in.run->run.gpu)));
  put(Nav(in, !data["ncu"].is_null()) + "</header>\n<main>\n");
  put(Overview(in));
  put(RegionsSection(in));
  put(KernelsSection(in));
  put(NcuKernelSection(!data["ncu"].is_null()));
  if (in.phases) put(PhasesHtml(*in.phases));
  put(TimelineSection(in));
  put(GpuBreakdownSection(in.gpu_breakdown));
  if (in.stragglers) WriteStragglersHtml(*in.stragglers, sink);
  put(TableSection("kernel-table", "Kernels",
                   kernels_omitted
                       ? fmt::format("Every input's kernels per process and device, largest total first; the {} "
                                     "smallest are not listed here (kernels.json has them).",
                                     kernels_omitted)
                       : "Every input's kernels per process and device. Click a heading to sort."));
  put(TableSection("region-table", "Regions",
                   regions_omitted
                       ? fmt::format("Every region; {} more are in the region report only.", regions_omitted)
                       : "Every region with each quantity it knows (empty: unknown). Click a heading "
                         "to sort."));
  put(DataQuality(in));
  put("</main>\n<script type=\"application/json\" id=\"report-data\">" + ScriptJson(data) + "</script>\n");
  put("<script>\n" + HtmlScript() + "</script>\n</body></html>\n");
}

}  // namespace llmpo::report
