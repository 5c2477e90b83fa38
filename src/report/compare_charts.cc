#include "src/report/compare_charts.h"

#include <fmt/format.h>

#include <algorithm>

#include "src/report/compare_text.h"
#include "src/report/html_text.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr double kWidth = 1000, kLabel = 330, kPlot = 560;  // px: the label column, then the bars

std::string Svg(std::string_view cls, std::string_view chart, double height, std::string_view label,
                const std::string& body) {
  return fmt::format(
      "<svg class=\"{}\" data-chart=\"{}\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-label=\"{}\">\n"
      "{}</svg>\n",
      cls, chart, kWidth, height, label, body);
}

std::string NameText(const std::string& name, double y) {
  return fmt::format("<text class=\"name\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", kLabel - 8, y,
                     HtmlShort(name, 48));
}

// One side's bar, or words saying the kernel is not on that side or has no duration there.
std::string SideBar(std::string_view cls, bool present, const std::optional<double>& ns, double scale, double y) {
  if (!ns) {
    return fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", kLabel + 4, y + 10,
                       present ? "no duration known" : "not on this side");
  }
  const double w = *ns * scale;
  return fmt::format(
      "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{:.2f}\" height=\"11\" data-ns=\"{}\"></rect>"
      "<text x=\"{:.2f}\" y=\"{}\">{} ms</text>",
      cls, kLabel, y, w, *ns, kLabel + w + 4, y + 10, MsText(*ns));
}

}  // namespace

std::string CompareBarsSvg(const Comparison& c, std::size_t top) {
  const std::size_t n = std::min(top, c.kernels.size());
  double max_ns = 0;
  for (std::size_t i = 0; i < n; ++i) {
    max_ns = std::max({max_ns, c.kernels[i].base_ns.value_or(0), c.kernels[i].new_ns.value_or(0)});
  }
  const double scale = max_ns > 0 ? kPlot / max_ns : 0;
  std::string body = fmt::format(
      "<rect class=\"base\" x=\"{}\" y=\"6\" width=\"12\" height=\"10\"></rect><text x=\"{}\" y=\"15\">base</text>"
      "<rect class=\"new\" x=\"{}\" y=\"6\" width=\"12\" height=\"10\"></rect><text x=\"{}\" y=\"15\">new</text>\n",
      kLabel, kLabel + 16, kLabel + 70, kLabel + 86);
  for (std::size_t i = 0; i < n; ++i) {
    const KernelDelta& k = c.kernels[i];
    const double y = 26 + 32 * static_cast<double>(i);
    body += fmt::format(
        "<g class=\"kernel\" data-name=\"{}\"><title>{}\nbase: {} ms\nnew: {} ms\nchange: {} ms ({})</title>{}{}{}"
        "</g>\n",
        HtmlText(k.name), HtmlText(k.name), MsText(k.base_ns), MsText(k.new_ns), SignedMs(k.delta_ns),
        HtmlText(k.match), NameText(k.name, y + 17), SideBar("base", k.match != "new", k.base_ns, scale, y),
        SideBar("new", k.match != "gone", k.new_ns, scale, y + 13));
  }
  return Svg("bars compare-bars", "kernel-bars", 30 + 32 * static_cast<double>(n),
             "base and new GPU kernel time per kernel", body);
}

namespace {

struct Step {
  std::string what;
  double from = 0, to = 0;  // ns: the running sum before and after
  std::string cls;          // up, down, total
};

std::string StepRow(const Step& s, std::size_t i, double lo, double scale) {
  const double y = 10 + 24 * static_cast<double>(i);
  const double x0 = kLabel + (std::min(s.from, s.to) - lo) * scale;
  const double x1 = kLabel + (std::max(s.from, s.to) - lo) * scale;
  return fmt::format(
      "<g class=\"step {}\"><title>{}\nchange: {} ms\nrunning sum: {} ms</title>{}"
      "<rect class=\"{}\" x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"16\" data-delta-ns=\"{}\" "
      "data-from-ns=\"{}\" data-to-ns=\"{}\"></rect><text x=\"{:.2f}\" y=\"{}\">{} ms</text></g>\n",
      s.cls, HtmlText(s.what), SignedMs(s.to - s.from), SignedMs(s.to), NameText(s.what, y + 12), s.cls, x0, y,
      std::max(x1 - x0, 0.0), s.to - s.from, s.from, s.to, x1 + 4, y + 12, SignedMs(s.to - s.from));
}

}  // namespace

std::string WaterfallSvg(const Comparison& c) {
  std::vector<Step> steps;
  double sum = 0;
  for (const auto& row : c.attribution) {
    steps.push_back({row.what, sum, sum + row.delta_ns, row.delta_ns >= 0 ? "up" : "down"});
    sum += row.delta_ns;
  }
  steps.push_back({"total change", 0, c.delta_ns, "total"});
  double lo = 0, hi = 0;
  for (const auto& s : steps) lo = std::min({lo, s.from, s.to}), hi = std::max({hi, s.from, s.to});
  const double scale = hi > lo ? kPlot / (hi - lo) : 0;
  std::string body;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    body += StepRow(steps[i], i, lo, scale);
    if (i + 1 < steps.size()) {
      const double x = kLabel + (steps[i].to - lo) * scale, y = 26 + 24 * static_cast<double>(i);
      body += fmt::format("<line class=\"step\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1}\" y2=\"{2}\"></line>\n", x, y,
                          y + 8);
    }
  }
  const double height = 14 + 24 * static_cast<double>(steps.size());
  body += fmt::format("<line class=\"zero\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"4\" y2=\"{1}\"></line>\n",
                      kLabel + (0 - lo) * scale, height - 4);
  return Svg("bars waterfall", "waterfall", height, "change of GPU kernel time per kernel, adding up to the total",
             body);
}

}  // namespace llmpo::report
