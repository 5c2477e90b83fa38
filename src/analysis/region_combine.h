// Joins the regions of several inputs without adding what two of them
// measured twice (docs/regions.md, "Several inputs").
//
// Inputs of one family (timelines, ncu, nsys stats summaries) that describe
// different processes or devices are summed: they are different parts of
// the program. An input whose scope (process, device) another input of the
// same family already holds describes the same process again (the same file
// twice, two exports of one run): it starts a group of its own. Groups, and
// inputs of different families (nsys and ncu of one run), are never added:
// each region quantity comes from the first group that has it, in the order
// timeline > ncu > nsys stats, then input order; the other groups' values
// are kept beside it (`also_measured`) and a note says so.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/analysis/region_tree.h"
#include "src/model/source.h"

namespace llmpo::analysis {

using model::SourceFamily;

struct SourceRegions {
  RegionBuilder* builder;  // finished; CombineRegions moves its trees out (read each builder once)
  SourceFamily family;
};

struct CombinedRegions {
  std::map<Scope, RegionTree> scopes;
  RegionTree aggregate;
  std::vector<std::string> notes;
  bool saw_nvtx = false;
  std::uint64_t launches_with_nvtx = 0;  // over the inputs whose numbers are shown
  std::uint64_t launches_outside = 0;
  bool launches_per_range = false;  // launches_with_nvtx counts (launch, range) pairs (nvtx_kern_sum)
};

// Moves each builder's trees into the result (no copy of every region and
// its kernels): call it once per set of builders.
CombinedRegions CombineRegions(const std::vector<SourceRegions>& sources);

}  // namespace llmpo::analysis
