// Stragglers: per region that several ranks ran (their scopes in the
// combined regions, one tree per process and device), the slowest rank and
// by how much it exceeds the median rank. Steps (ProfilerStep#N, "step N")
// come first, one row each; then the other regions with the largest excess.
// A rank's value is its devices' values added; the quantity is the regions'
// GPU total where every rank has one, else their CPU range time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/region_combine.h"

namespace llmpo::analysis {

struct StragglerRow {
  std::string region;    // the label path, outermost first, joined by " > "
  std::string quantity;  // "total" (GPU) or "cpu"
  int ranks = 0;         // ranks that ran it
  std::int64_t slowest_rank = 0, fastest_rank = 0;
  double slowest_ns = 0, median_ns = 0, fastest_ns = 0;
  double excess_ns = 0;              // slowest - median
  std::optional<double> excess_pct;  // of the median; none when the median is 0
};

struct Stragglers {
  int ranks = 0;                      // ranks with regions
  std::vector<StragglerRow> steps;    // in step order
  std::vector<StragglerRow> regions;  // largest excess first, at most `top`
};

// Empty (ranks < 2) unless two ranked scopes hold regions.
Stragglers FindStragglers(const CombinedRegions& regions, std::size_t top);

// The step number a region name gives ("ProfilerStep#12", "step 3",
// "step_3", "Step3"); none for another name.
std::optional<std::int64_t> StepNumber(const std::string& name);

}  // namespace llmpo::analysis
