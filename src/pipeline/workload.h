// The program a profile run measures: pipeline.workload.argv when set (or
// `profile -- CMD...`), else the bundled workload the model config names
// (model.workload), looked up beside the binary (workloads/<name>), with
// model.workload_args appended.
#pragma once

#include <string>

#include "src/config/node.h"
#include "src/core/result.h"
#include "src/pipeline/commands.h"

namespace llmpo::pipeline {

struct Workload {
  Argv argv;
  bool bundled = false;
  bool exists = true;  // false: a bundled workload that is not built
};

Result<Workload> ResolveWorkload(const config::Node& config);

}  // namespace llmpo::pipeline
