#include "src/report/html_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "src/report/category_colour.h"
#include "src/report/html_report.h"
#include "src/report/html_text.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using analysis::Quantity;
using analysis::Region;

constexpr double kWidth = 1000;
constexpr double kRowHeight = 22;
constexpr double kCharWidth = 7;  // for fitting labels; the stylesheet's 12 px font is about this wide

std::string Label(const std::string& text, double width_px) {
  if (width_px < 4 * kCharWidth) return "";
  return HtmlShort(text, static_cast<std::size_t>((width_px - 6) / kCharWidth));
}

std::string Percent(double v) { return fmt::format("{:.1f} %", v); }

// The tooltip of one region: every quantity it knows, named.
std::string RegionTitle(const Region& r, Quantity drawn, std::optional<double> parent_value) {
  std::vector<std::string> lines{HtmlText(JoinPath(r.path))};
  auto add = [&](const char* name, const std::optional<double>& v, const std::optional<double>& excl) {
    if (!v) return;
    lines.push_back(excl ? fmt::format("{}: {} ms (exclusive {} ms)", name, MsText(*v), MsText(*excl))
                         : fmt::format("{}: {} ms", name, MsText(*v)));
  };
  add("GPU kernel time", r.total_ns, r.exclusive_ns);
  add("GPU memory-operation time", r.gpu_ops_ns, r.gpu_ops_exclusive_ns);
  add("Projected GPU time", r.projected_ns, std::nullopt);
  add("CPU range time", r.cpu_ns, r.cpu_exclusive_ns);
  lines.push_back(fmt::format("kernel launches: {}", CountText(r.KnownLaunches())));
  const auto value = r.Value(drawn);
  if (value && parent_value && *parent_value > 0) {
    lines.push_back(
        fmt::format("share of parent ({}): {}", QuantityMeaning(drawn), Percent(100 * *value / *parent_value)));
  }
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

class IcicleLayout {
 public:
  IcicleLayout(const std::vector<RegionEntry>& entries, Quantity q) : entries_(entries), q_(q) {
    // Region::children holds tree indices; entries are in another order.
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const std::size_t t = entries_[i].tree_index;
      if (t >= entry_of_.size()) entry_of_.resize(t + 1, kNoEntry);
      entry_of_[t] = i;
    }
  }

  IcicleResult Draw() {
    std::vector<std::size_t> roots;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (!entries_[i].region->parent) roots.push_back(i);
    }
    double sum = 0;
    for (auto i : roots) sum += Value(i);
    Place(roots, 0.0, 1.0, sum, std::nullopt);
    const double height = kRowHeight * (max_depth_ + 1);
    result_.svg = fmt::format(
        "<svg class=\"icicle\" data-chart=\"regions\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
        "aria-label=\"NVTX region tree, widths: {}\">\n{}</svg>\n",
        kWidth, height, QuantityMeaning(q_), body_);
    return std::move(result_);
  }

 private:
  static constexpr std::size_t kNoEntry = static_cast<std::size_t>(-1);

  // The entry indices of entry i's children.
  std::vector<std::size_t> Children(std::size_t i) const {
    std::vector<std::size_t> out;
    for (auto t : entries_[i].region->children) {
      if (t < entry_of_.size() && entry_of_[t] != kNoEntry) out.push_back(entry_of_[t]);
    }
    return out;
  }

  double Value(std::size_t i) const { return std::max(0.0, entries_[i].region->Value(q_).value_or(0.0)); }

  // Lays out `ids` side by side in [x0, x1) of the full width, in proportion
  // to their values over `total` (the parent's value, or the children's sum
  // when larger, so children never spill out of their parent).
  void Place(const std::vector<std::size_t>& ids, double x0, double x1, double total,
             std::optional<double> parent_value) {
    double x = x0;
    for (auto i : ids) {
      const double share = total > 0 ? Value(i) / total * (x1 - x0) : 0;
      if (share < kIcicleMinShare) {
        result_.hidden += 1 + Descendants(i);
        continue;
      }
      Node(i, x, x + share, parent_value);
      const std::vector<std::size_t> children = Children(i);
      double child_sum = 0;
      for (auto c : children) child_sum += Value(c);
      Place(children, x, x + share, std::max(Value(i), child_sum), entries_[i].region->Value(q_));
      x += share;
    }
  }

  std::size_t Descendants(std::size_t i) const {
    std::size_t n = 0;
    for (auto c : Children(i)) n += 1 + Descendants(c);
    return n;
  }

  void Node(std::size_t i, double x0, double x1, std::optional<double> parent_value) {
    const Region& r = *entries_[i].region;
    max_depth_ = std::max(max_depth_, r.depth);
    ++result_.drawn;
    const double w = (x1 - x0) * kWidth;
    const double y = r.depth * kRowHeight;
    body_ += fmt::format(
        "<g class=\"node\" data-x0=\"{:.6f}\" data-x1=\"{:.6f}\" data-d=\"{}\" data-label=\"{}\">"
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"/>"
        "<text x=\"{:.2f}\" y=\"{}\">{}</text><title>{}</title></g>\n",
        x0, x1, r.depth, HtmlText(r.label), x0 * kWidth, y, w, kRowHeight - 1, NameColour(r.label), x0 * kWidth + 3,
        y + 15, Label(r.label, w), RegionTitle(r, q_, parent_value));
  }

  const std::vector<RegionEntry>& entries_;
  std::vector<std::size_t> entry_of_;  // tree index -> entry index
  Quantity q_;
  IcicleResult result_;
  std::string body_;
  int max_depth_ = 0;
};

}  // namespace

Quantity IcicleQuantity(const std::vector<RegionEntry>& entries) {
  for (Quantity q : {Quantity::kTotal, Quantity::kCpu, Quantity::kProjected, Quantity::kGpuOps}) {
    for (const auto& e : entries) {
      if (!e.region->parent && e.region->Value(q).value_or(0) > 0) return q;
    }
  }
  return Quantity::kTotal;
}

std::string QuantityMeaning(Quantity q) {
  switch (q) {
    case Quantity::kTotal:
      return "GPU kernel time (inclusive)";
    case Quantity::kGpuOps:
      return "GPU memory-operation time (inclusive)";
    case Quantity::kProjected:
      return "projected GPU time (first start to last end of the GPU work inside)";
    case Quantity::kCpu:
      return "CPU range time";
  }
  return "";
}

IcicleResult IcicleSvg(const std::vector<RegionEntry>& entries, Quantity q) { return IcicleLayout(entries, q).Draw(); }

std::string KernelBarsSvg(const std::vector<TopKernel>& top) {
  constexpr double kLabelWidth = 380, kBarX = 390, kBarMax = 320;  // room for the numbers after the longest bar
  const double max = top.empty() ? 0 : top.front().kernel.total_ns;
  std::string body;
  for (std::size_t i = 0; i < top.size(); ++i) {
    const auto& k = top[i].kernel;
    const double w = max > 0 ? k.total_ns / max * kBarMax : 0;
    const double y = static_cast<double>(i) * kRowHeight;
    body += fmt::format(
        "<g class=\"bar\"><text class=\"name\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
        "<rect x=\"{}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"/>"
        "<text x=\"{:.2f}\" y=\"{}\">{} ms · {} calls · mean {} ms{}</text>"
        "<title>{}\nGPU kernel time: {} ms ({} of the run's GPU kernel time)\ncalls: {}\nmean: {} ms\n"
        "bound: {}\ncategory: {}</title></g>\n",
        kLabelWidth, y + 15, HtmlShort(k.name, 52), kBarX, y + 2, w, kRowHeight - 4,
        top[i].category.empty() ? std::string("#5b8ff9") : CategoryColour(top[i].category), kBarX + w + 4, y + 15,
        MsText(k.total_ns), k.calls, MsText(k.MeanNs()),
        top[i].category.empty() ? std::string() : " · " + HtmlText(top[i].category), HtmlText(k.name),
        MsText(k.total_ns), Percent(top[i].share_pct), k.calls, MsText(k.MeanNs()), HtmlText(top[i].bound),
        top[i].category.empty() ? std::string("not known in this input") : HtmlText(top[i].category));
  }
  return fmt::format(
      "<svg class=\"bars\" data-chart=\"kernels\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-label=\"top kernels by GPU kernel time\">\n{}</svg>\n",
      kWidth, std::max(kRowHeight, kRowHeight * static_cast<double>(top.size())), body);
}

namespace {

constexpr double kRoofLeft = 70, kRoofTop = 10, kRoofPlotW = 880, kRoofPlotH = 380;

// The roofline's log axes, in whole decades covering the points and the
// roofs' ridge points.
struct LogAxes {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  double X(double v) const { return kRoofLeft + (std::log10(v) - x0) / (x1 - x0) * kRoofPlotW; }
  double Y(double v) const { return kRoofTop + (y1 - std::log10(v)) / (y1 - y0) * kRoofPlotH; }
};

LogAxes AxesFor(const std::vector<RooflinePoint>& points) {
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const auto& p : points) {
    x_lo = std::min(x_lo, p.intensity);
    x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.achieved_per_s);
    y_hi = std::max(y_hi, p.peak_per_s.value_or(p.achieved_per_s));
    if (p.peak_per_s && p.dram_peak_bytes_per_s && *p.dram_peak_bytes_per_s > 0) {
      x_hi = std::max(x_hi, *p.peak_per_s / *p.dram_peak_bytes_per_s);
    }
  }
  LogAxes a;
  a.x0 = std::floor(std::log10(x_lo));
  a.x1 = std::max(a.x0 + 1, std::ceil(std::log10(x_hi)));
  a.y0 = std::floor(std::log10(y_lo));
  a.y1 = std::max(a.y0 + 1, std::ceil(std::log10(y_hi)));
  return a;
}

std::string RoofAxes(const LogAxes& ax) {
  std::string body = fmt::format(
      "<rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" "
      "stroke=\"#c8cdd6\"/>\n",
      kRoofLeft, kRoofTop, kRoofPlotW, kRoofPlotH);
  for (double d = ax.x0; d <= ax.x1; ++d) {
    body += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">1e{}</text>\n", ax.X(std::pow(10, d)),
                        kRoofTop + kRoofPlotH + 16, static_cast<int>(d));
  }
  for (double d = ax.y0; d <= ax.y1; ++d) {
    body += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">1e{}</text>\n", kRoofLeft - 6,
                        ax.Y(std::pow(10, d)) + 4, static_cast<int>(d));
  }
  return body;
}

// One roof per precision: the highest peaks among its kernels (ncu's peaks
// scale with the clock each kernel ran at, so they differ a little).
std::string Roofs(const std::vector<RooflinePoint>& points, const LogAxes& ax) {
  std::map<std::string, std::pair<double, double>> roofs;
  for (const auto& p : points) {
    if (!p.peak_per_s || !p.dram_peak_bytes_per_s) continue;
    auto& [peak, bw] = roofs[p.precision];
    peak = std::max(peak, *p.peak_per_s);
    bw = std::max(bw, *p.dram_peak_bytes_per_s);
  }
  std::string body;
  for (const auto& [precision, roof] : roofs) {
    const auto [peak, bw] = roof;
    const double ridge = peak / bw;
    const double xs = std::pow(10, ax.x0), xe = std::pow(10, ax.x1);
    const double y_start = std::max(xs * bw, std::pow(10, ax.y0));
    body += fmt::format(
        "<polyline class=\"roof\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{:.1f},{:.1f} "
        "{:.1f},{:.1f} {:.1f},{:.1f}\"><title>{} roof (highest among its kernels): {:.4g} FLOP/s; DRAM {:.4g} "
        "byte/s; ridge {:.3g} FLOP/byte</title></polyline>\n",
        NameColour(precision), ax.X(y_start / bw), ax.Y(y_start), ax.X(ridge), ax.Y(peak), ax.X(xe), ax.Y(peak),
        HtmlText(precision), peak, bw, ridge);
  }
  return body;
}

std::string RoofPoints(const std::vector<RooflinePoint>& points, const LogAxes& ax) {
  double max_t = 0;
  for (const auto& p : points) max_t = std::max(max_t, p.time_ns.value_or(0));
  std::string body;
  for (const auto& p : points) {
    const double r = max_t > 0 && p.time_ns ? 3 + 9 * std::sqrt(*p.time_ns / max_t) : 4;
    body += fmt::format(
        "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.7\" "
        "stroke=\"#333\"><title>{}\n{}: {:.4g} FLOP/s at {:.3g} FLOP/byte (DRAM){}\nGPU kernel time in its input: {}"
        "</title></circle>\n",
        ax.X(p.intensity), ax.Y(p.achieved_per_s), r, NameColour(p.precision), HtmlText(p.kernel),
        HtmlText(p.precision), p.achieved_per_s, p.intensity,
        p.peak_per_s ? fmt::format("; {:.1f} % of its compute peak", 100 * p.achieved_per_s / *p.peak_per_s) : "",
        p.time_ns ? MsText(*p.time_ns) + " ms" : "n/a (no launch timed)");
  }
  return body;
}

}  // namespace

std::string RooflineSvg(const std::vector<RooflinePoint>& points) {
  const LogAxes ax = AxesFor(points);
  std::string body = RoofAxes(ax) + Roofs(points, ax) + RoofPoints(points, ax);
  body += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity, FLOP/byte of DRAM traffic (log)</text>\n"
      "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">achieved FLOP/s (log)</text>\n",
      kRoofLeft + kRoofPlotW / 2, kRoofTop + kRoofPlotH + 34, kRoofTop + kRoofPlotH / 2);
  return fmt::format(
      "<svg class=\"roofline\" data-chart=\"roofline\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-label=\"roofline: achieved FLOP/s against DRAM arithmetic intensity\">\n{}</svg>\n",
      kWidth, kRoofTop + kRoofPlotH + 44, body);
}

std::string TimelineSvg(const TimelineOverview& t) {
  constexpr double kLabelWidth = 220, kStripX = 230, kStripW = 760;
  const double span_ns = static_cast<double>(t.end_ns - t.start_ns);
  const double bin_ns = t.bin_ns;
  const double bins_ns = bin_ns * static_cast<double>(t.bins);
  const double bin_px = t.bins ? kStripW / static_cast<double>(t.bins) : 0;
  std::string body;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    const double y = static_cast<double>(r) * kRowHeight;
    body += fmt::format(
        "<g class=\"row\"><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}<title>{}\nbusy: {} of {} ms</title></text>"
        "<rect class=\"strip\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
        kLabelWidth, y + 15, HtmlShort(row.label, 30), HtmlText(row.label),
        row.busy_total_ns ? MsText(*row.busy_total_ns) + " ms" : "not known (operations out of order)", MsText(span_ns),
        kStripX, y + 2, kStripW, kRowHeight - 4);
    for (std::size_t b = 0; b < row.busy_ns.size(); ++b) {
      if (row.busy_ns[b] <= 0) continue;
      const double share = std::min(1.0, bin_ns > 0 ? row.busy_ns[b] / bin_ns : 0);
      body += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill-opacity=\"{:.3f}\">"
          "<title>{} to {} ms: GPU busy {} ms ({})</title></rect>\n",
          kStripX + bin_px * static_cast<double>(b), y + 2, bin_px, kRowHeight - 4, 0.15 + 0.85 * share,
          MsText(bin_ns * static_cast<double>(b)), MsText(bin_ns * static_cast<double>(b + 1)), MsText(row.busy_ns[b]),
          Percent(100 * share));
    }
    body += "</g>\n";
  }
  const double height = kRowHeight * static_cast<double>(t.rows.size()) + 20;
  body += fmt::format("<text x=\"{}\" y=\"{}\">0 ms</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} ms</text>\n",
                      kStripX, height - 4, kStripX + kStripW, height - 4, MsText(bins_ns));
  return fmt::format(
      "<svg class=\"timeline\" data-chart=\"timeline\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-label=\"GPU busy time per stream over the traced span\">\n{}</svg>\n",
      kWidth, height, body);
}

std::string NameColour(std::string_view name) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return fmt::format("hsl({},55%,68%)", h % 360);
}

}  // namespace llmpo::report
