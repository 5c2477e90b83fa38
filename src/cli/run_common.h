// Pieces shared by the commands that make a run folder (profile, trace).
#pragma once

#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"
#include "src/pipeline/run_folder.h"
#include "src/pipeline/workload.h"

namespace llmpo::cli {

// Splits "CMD [OPTIONS/OVERRIDES] -- PROGRAM..." at the first "--".
std::vector<std::string> SplitWorkload(const std::vector<std::string>& args, std::vector<std::string>& workload);
// hydra.run.dir, checked.
Result<std::string> RunDir(const config::Node& config);
// config.yaml, env.json, inputs.yaml and a first run.json.
Status WriteProvenance(pipeline::RunFolder& run, const config::Node& config, const pipeline::Workload& workload);
// The run folder, every step with its status, the artifacts and the status.
void PrintSummary(const pipeline::RunFolder& run, pipeline::RunStatus status);

}  // namespace llmpo::cli
