// Region-report settings read from the composed configuration.
#pragma once

#include <map>
#include <string>

#include "src/analysis/kernel_category.h"
#include "src/analysis/instance_suffix.h"
#include "src/analysis/kernel_filter.h"
#include "src/analysis/metric_selection.h"
#include "src/analysis/phases.h"
#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::pipeline {

struct RegionOptions {
  analysis::PatternSet kernels;                            // pipeline.ncu.ncu_cli.kernels
  std::map<std::string, analysis::PatternSet> per_region;  // pipeline.regions.kernels
  analysis::MetricSelection selection;                     // pipeline.ncu.ncu_cli.sections / metrics
  bool aggregate = true;                                   // pipeline.regions.aggregate
  std::size_t max_folders = 1000;                          // pipeline.regions.max_folders
  std::string instance_suffix = analysis::kDefaultInstanceSuffix;  // pipeline.regions.instance_suffix
  std::vector<analysis::CategoryRule> categories;          // analysis.kernel_categories, before the built-in table
  analysis::PhaseOptions phases;                           // analysis.phases, analysis.steady_state, model.tokens
};

// Missing keys keep the defaults; a key of the wrong type is a usage error
// that names it.
Result<RegionOptions> RegionOptionsFromConfig(const config::Node& config);

}  // namespace llmpo::pipeline
