// The "Phases" section of the reports (analysis/phases.h): report.md and
// kernels.md (Markdown), kernels.json and report_set.json (one JSON
// member), stakeholder_summary.md (a few lines) and report.html (split bar,
// per-token cost table, per-step series with warm-up marked, graph table).
// Render only: every number comes from the PhaseReport.
#pragma once

#include <string>

#include "src/analysis/phases.h"
#include "src/report/json_writer.h"

namespace llmpo::report {

std::string PhasesMarkdown(const analysis::PhaseReport& phases);
// The lines stakeholder_summary.md shows (a short list, no tables).
std::string PhasesSummaryMarkdown(const analysis::PhaseReport& phases);
// The section's value ("phases": {...}) at the writer's place.
void WritePhasesJson(JsonWriter& w, const analysis::PhaseReport& phases);
std::string PhasesHtml(const analysis::PhaseReport& phases);
// Whether the config gave model work (FLOPs or bytes) for some phase: the
// MFU / MBU table is shown then.
bool PhaseUtilizationConfigured(const analysis::PhaseReport& phases);
// A phase's warm-up steps: "0", or "N (left out)" / "N (kept)" (analysis.steady_state=off).
std::string WarmupText(const analysis::PhaseSummary& s, bool steady);

}  // namespace llmpo::report
