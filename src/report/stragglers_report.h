// stragglers.md / stragglers.json: per step the slowest rank and by how
// much it exceeds the median rank, then the regions with the largest such
// excess (analysis/rank_stragglers.h). Written when two or more ranks have
// regions (NVTX ranges, PyTorch annotations).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "src/analysis/rank_stragglers.h"

namespace llmpo::report {

// The ranks the Ranks tables list: every rank up to kWhoRows of them; past
// that, the ranks the report's tables name (slowest and fastest of each
// step and region, first and last to start, longest and least in
// collectives), at most kWhoRows, in rank order (every rank:
// stragglers.json).
inline constexpr std::size_t kWhoRows = 64;
std::vector<const analysis::RankWho*> WhoShown(const analysis::Stragglers& s);

std::string StragglersMarkdown(const analysis::Stragglers& s);
// stragglers.json, written to `out` as it goes (one row per step and rank).
void WriteStragglersJson(const analysis::Stragglers& s, std::ostream& out);
// report.html's Stragglers section: the rank x step heatmap, the steps and
// regions furthest over their median, time in collectives; written to `out`
// as it goes (the heatmap a cell at a time), or returned as one string.
void WriteStragglersHtml(const analysis::Stragglers& s, std::ostream& out);
std::string StragglersHtml(const analysis::Stragglers& s);

}  // namespace llmpo::report
