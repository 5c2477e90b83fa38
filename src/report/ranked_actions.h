// "What to do first": one list of the timeline rules' findings and the
// kernels' actions (ncu's estimates, else headroom), ranked by the share of
// one measured time each could save at most (docs/analysis.md "What to do
// first"). The list says which time it is a share of; findings whose time
// is not comparable with it (host time without a timeline span) come last,
// unranked. Estimates overlap and are never added.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/analysis/timeline_rules.h"
#include "src/report/analysis_model.h"

namespace llmpo::report {

struct KernelsReport;

struct RankedAction {
  std::string kind;                  // "timeline" (a timeline rule) or "kernel" (one kernel's action)
  std::string what;                  // the timeline rule id, or the kernel's name
  std::string where;                 // the rule's scope, or the kernel's category
  std::string basis;                 // "timeline rule", "ncu global estimate", "roofline headroom", ...
  std::string rule;                  // the ncu rule id ("" when none)
  std::optional<double> saving_ns;   // upper bound of the time it could save
  std::optional<double> saving_pct;  // saving_ns / RankedActions::base_ns x 100; null: not comparable
  std::string message;               // what it means and what to do
  std::string evidence;              // the numbers behind it
};

enum class RankBase {
  kNone,           // nothing measured: no list
  kDeviceSpan,     // a timeline's device spans (first to last GPU activity), summed over devices
  kGpuKernelTime,  // an nsys summary's GPU kernel time (no span: host time is not comparable)
  kNcuKernelTime,  // ncu's kernel durations (serialised, fixed clocks)
};

std::string_view ToString(RankBase base);

struct RankedActions {
  std::string times_from;  // TimingChoice::label: the input, or "N inputs of M ranks"
  RankBase base = RankBase::kNone;
  std::optional<double> base_ns;      // the measured time each saving is a share of
  std::size_t devices = 0;            // kDeviceSpan: the devices summed
  std::vector<RankedAction> items;    // ranked first (largest share first), then the unranked by saving
  std::vector<std::string> notes;     // said with the list: why a part is missing, what a base means
  std::string why_no_kernel_actions;  // when no kernel has an action (KernelsReport::why_no_actions)
};

// What the base means, in one sentence for the reports.
std::string BaseText(const RankedActions& ranked);

// Pure: from the report's actions, timeline findings and timing input.
RankedActions RankTogether(const KernelsReport& report);

// The list as Markdown ("## What to do first"; kernels.md, stakeholder_summary.md)
// and as an HTML fragment (report.html's overview).
void RankedActionsMd(std::string& out, const RankedActions& ranked);
std::string RankedActionsHtml(const RankedActions& ranked, const std::vector<std::string>& recommendations);

class JsonWriter;
// kernels.json's "what_to_do_first" object (docs/import.md).
void WriteRankedJson(JsonWriter& w, const RankedActions& ranked);

}  // namespace llmpo::report
