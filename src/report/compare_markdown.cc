// compare.md: the compare report for people, summary first (docs/compare.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/report/compare_model.h"
#include "src/report/compare_text.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

std::string UsText(const std::optional<double>& ns) { return ns ? fmt::format("{:.2f}", *ns / 1e3) : "n/a"; }

void TotalMd(std::string& out, const Comparison& c) {
  out += fmt::format("**Total GPU kernel time: {} ms → {} ms ({} ms, {}): {}**", MsText(c.base_kernel_ns),
                     MsText(c.new_kernel_ns), SignedMs(c.delta_ns), PctText(c.total_test.change_pct),
                     VerdictText(c.total_test));
  if (c.total_test.p_value) {
    const std::string p = PText(c.total_test);
    out += fmt::format(" (p {}{}).", p.starts_with("<") ? "" : "= ", p);
  } else {
    out += ".";
  }
  out += fmt::format(" Launches: {} → {}. Kernel times from `{}` (base) and `{}` (new).\n\n", c.base_launches,
                     c.new_launches, MdCell(c.base_times_from, 200), MdCell(c.new_times_from, 200));
  for (const auto& g : c.guardrails) out += fmt::format("> **Check:** {}.\n", OneLine(g));
  if (!c.guardrails.empty()) out += "\n";
}

void AttributionMd(std::string& out, const Comparison& c) {
  if (c.attribution.empty()) return;
  out += "### Where the change comes from\n\n| Kernel(s) | Change (ms) |\n|---|---:|\n";
  double sum = 0;
  for (const auto& row : c.attribution) {
    out += fmt::format("| {} | {} |\n", MdCell(row.what), SignedMs(row.delta_ns));
    sum += row.delta_ns;
  }
  out += fmt::format("| **total** | **{}** |\n\n", SignedMs(sum));
}

void KernelsMd(std::string& out, const Comparison& c, std::size_t top) {
  out += "### Kernels\n\n";
  if (c.kernels.empty()) {
    out += "No kernels on either side.\n\n";
    return;
  }
  out +=
      "| Kernel | Match | Base (ms) | New (ms) | Change (ms) | Calls | Mean (µs) | Mean change | Verdict | p | Bound "
      "|\n"
      "|---|---|---:|---:|---:|---|---|---:|---|---:|---|\n";
  for (std::size_t i = 0; i < c.kernels.size() && i < top; ++i) {
    const auto& k = c.kernels[i];
    const std::string verdict = k.mean_test ? VerdictText(*k.mean_test) : k.match;
    out += fmt::format("| {} | {} | {} | {} | {} | {} → {} | {} → {} | {} | {} | {} | {} |\n", MdCell(k.name, 80),
                       k.match, MsText(k.base_ns), MsText(k.new_ns), SignedMs(k.delta_ns), k.base_calls, k.new_calls,
                       UsText(k.base_mean_ns), UsText(k.new_mean_ns),
                       k.mean_test ? PctText(k.mean_test->change_pct) : "n/a", verdict,
                       k.mean_test ? PText(*k.mean_test) : "n/a", BoundText(k));
  }
  if (c.kernels.size() > top) out += fmt::format("\n{} more kernel(s) in compare.json.\n", c.kernels.size() - top);
  out += "\n";
}

std::string ContributorsText(const RegionDelta& r) {
  std::string text;
  for (const auto& row : r.contributors) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {} ms", MdCell(row.what, 40), SignedMs(row.delta_ns));
  }
  return text.empty() ? "" : text;
}

void ScopesMd(std::string& out, const Comparison& c, std::size_t top) {
  if (c.scopes.empty()) return;
  out +=
      "### Scopes\n\nGPU kernel time per scope of the timing input, matched by role: rank, else device, else "
      "process.\n\n| Scope | Base (ms) | New (ms) | Change (ms) | Change | Verdict | Launches |\n"
      "|---|---:|---:|---:|---:|---|---|\n";
  for (std::size_t i = 0; i < c.scopes.size() && i < top; ++i) {
    const auto& s = c.scopes[i];
    const std::string verdict = s.test ? VerdictText(*s.test) : (s.base_ns ? "gone" : "new");
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} → {} |\n", MdCell(s.scope, 60), MsText(s.base_ns),
                       MsText(s.new_ns), SignedMs(s.delta_ns), s.test ? PctText(s.test->change_pct) : "n/a", verdict,
                       s.base_launches, s.new_launches);
  }
  if (c.scopes.size() > top) out += fmt::format("\n{} more scope(s) in compare.json.\n", c.scopes.size() - top);
  out += "\n";
}

void RegionsMd(std::string& out, const Comparison& c, std::size_t top) {
  if (c.regions.empty()) return;
  out +=
      "### Regions\n\nGPU kernel time per NVTX region (inclusive), matched by path.\n\n"
      "| Region | Match | Base (ms) | New (ms) | Change (ms) | Change | Verdict | Largest kernel changes |\n"
      "|---|---|---:|---:|---:|---:|---|---|\n";
  for (std::size_t i = 0; i < c.regions.size() && i < top; ++i) {
    const auto& r = c.regions[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", MdPathCell(r.path, 80), r.match,
                       MsText(r.base_ns), MsText(r.new_ns), r.delta_ns ? SignedMs(*r.delta_ns) : "n/a",
                       r.test ? PctText(r.test->change_pct) : "n/a", r.test ? VerdictText(*r.test) : r.match,
                       ContributorsText(r));
  }
  if (c.regions.size() > top) out += fmt::format("\n{} more region(s) in compare.json.\n", c.regions.size() - top);
  out += "\n";
}

std::string PositionText(const SequenceRow& r) {
  auto pos = [](const std::optional<std::size_t>& p) { return p ? std::to_string(*p) : std::string("–"); };
  return fmt::format("{} → {}", pos(r.base_position), pos(r.new_position));
}

// A row worth showing: inserted, removed, or aligned and called slower or faster.
bool Changed(const SequenceRow& r) {
  return r.op != "same" || (r.test && r.test->verdict != analysis::Verdict::kWithinNoise);
}

void SequenceRowsMd(std::string& out, const SequenceDelta& d, std::size_t top) {
  std::vector<const SequenceRow*> rows;
  for (const auto& r : d.rows) {
    if (Changed(r)) rows.push_back(&r);
  }
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const SequenceRow* a, const SequenceRow* b) {
    return std::fabs(a->delta_ns.value_or(0)) > std::fabs(b->delta_ns.value_or(0));
  });
  out += fmt::format(
      "\n**{} ({})**: the changed positions, largest first.\n\n"
      "| Position (base → new) | Kernel | Change | Base mean (µs) | New mean (µs) | Δ (µs) | Verdict |\n"
      "|---|---|---|---:|---:|---:|---|\n",
      MdPathCell(d.path, 80), MdCell(d.scope, 40));
  for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
    const SequenceRow& r = *rows[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", PositionText(r), MdCell(r.name, 80), r.op,
                       UsText(r.base_mean_ns), UsText(r.new_mean_ns),
                       r.delta_ns ? fmt::format("{:+.2f}", *r.delta_ns / 1e3) : "n/a",
                       r.test ? VerdictText(*r.test) : r.op);
  }
  if (rows.size() > top) out += fmt::format("\n{} more changed position(s) in compare.json.\n", rows.size() - top);
}

void SequencesMd(std::string& out, const Comparison& c, std::size_t top) {
  if (c.sequences.empty()) return;
  out +=
      "### Launch order\n\n"
      "Each region's kernel launches in order, in one scope, aligned between the sides by a shortest edit "
      "script (Myers' difference): a kernel inserted or removed leaves the rest paired. A position's duration is "
      "its mean over the region's instances.\n\n"
      "| Region | Scope | Match on | Instances | Launches per instance | Aligned | New | Gone | Slower | Faster | "
      "GPU time per instance (µs) | Change (µs) |\n"
      "|---|---|---|---|---|---:|---:|---:|---:|---:|---|---:|\n";
  for (std::size_t i = 0; i < c.sequences.size() && i < top; ++i) {
    const auto& d = c.sequences[i];
    out += fmt::format("| {} | {} | {} | {} → {} | {} → {} | {} | {} | {} | {} | {} | {} → {} | {} |\n",
                       MdPathCell(d.path, 80), MdCell(d.scope, 40), d.signature, d.base_instances, d.new_instances,
                       d.base_length, d.new_length, d.same, d.inserted, d.removed, d.slower, d.faster,
                       UsText(d.base_instance_ns), UsText(d.new_instance_ns),
                       d.delta_instance_ns ? fmt::format("{:+.2f}", *d.delta_instance_ns / 1e3) : "n/a");
  }
  if (c.sequences.size() > top) {
    out += fmt::format("\n{} more region(s) in compare.json.\n", c.sequences.size() - top);
  }
  constexpr std::size_t kDetailed = 5;  // regions whose changed positions are listed
  std::size_t shown = 0;
  for (const auto& d : c.sequences) {
    if (shown == kDetailed) break;
    if (d.inserted + d.removed + d.slower + d.faster == 0) continue;
    SequenceRowsMd(out, d, top);
    ++shown;
  }
  out += "\n";
}

}  // namespace

std::string CompareMarkdown(const CompareReport& report) {
  std::string out = "# Compare\n\n";
  out += fmt::format("Base: `{}`. ", MdCell(report.sides.front(), 200));
  out += fmt::format(
      "A change is slower or faster when it is at least {} % and significant at p < {} (Welch's t-test on mean "
      "launch durations; a z-test on totals); without noise data on a side, on the threshold alone "
      "(docs/compare.md).\n\n",
      report.options.significance.min_effect_pct, report.options.significance.alpha);
  for (const auto& c : report.comparisons) {
    out += fmt::format("## `{}` against `{}`\n\n", MdCell(c.new_label, 200), MdCell(c.base_label, 200));
    TotalMd(out, c);
    AttributionMd(out, c);
    ScopesMd(out, c, report.options.top);
    KernelsMd(out, c, report.options.top);
    RegionsMd(out, c, report.options.top);
    SequencesMd(out, c, report.options.top);
    if (!c.notes.empty()) {
      out += "### Notes\n\n";
      for (const auto& n : c.notes) out += "- " + OneLine(n) + "\n";
      out += "\n";
    }
  }
  return out;
}

}  // namespace llmpo::report
