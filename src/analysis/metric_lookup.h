// Finding one metric of a kernel under either spelling ncu uses (the raw
// name on a raw page or --metrics, the display label on a details page) and
// saying why there is no value when there is none.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/analysis/kernel_aggregator.h"

namespace llmpo::analysis {

struct MetricRef {
  std::string_view name;           // raw metric name, matched in any section
  std::string_view label = {};     // details-page label; "" when the page has none
  std::string_view section = {};   // the label's section (labels repeat across sections)
  std::string_view alt_name = {};  // another raw name of the same quantity ("" : none)
};

// A value, or the reason there is none ("dram__bytes.sum not captured",
// "... absent in 1 of 3 launches").
struct MetricValue {
  std::optional<double> value;
  std::string missing;
};

// Every launch must have reported the metric, in one unit: a value from
// some launches only would describe a part of the kernel as the whole.
MetricValue Lookup(const KernelAggregate& kernel, const MetricRef& ref);

}  // namespace llmpo::analysis
