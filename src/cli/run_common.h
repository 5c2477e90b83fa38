// Pieces shared by the commands that make a run folder (profile, trace).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/config/composer.h"
#include "src/config/node.h"
#include "src/core/result.h"
#include "src/pipeline/run_folder.h"
#include "src/pipeline/run_lock.h"
#include "src/pipeline/workload.h"

namespace llmpo::cli {

// Splits "CMD [OPTIONS/OVERRIDES] -- PROGRAM..." at the first "--".
std::vector<std::string> SplitWorkload(const std::vector<std::string>& args, std::vector<std::string>& workload);
// hydra.run.dir, checked.
Result<std::string> RunDir(const config::Node& config);
// Creates and claims the run folder hydra.run.dir names. A time-stamped
// default (${now:...} in it) gets -2, -3, ... when another run has it;
// a fixed folder is refused while another live run uses it. Warns when the
// lock of a run that died was taken over.
Result<pipeline::RunFolder> ClaimRunFolder(const config::Composition& composed, const std::string& dir,
                                           const std::vector<std::string>& command_line);
// Creates the output folder of `import` or `compare` and claims it: one
// writer at a time, none while a run writes it. A folder that cannot be
// created is left to the writers, whose error names the file.
Result<std::optional<pipeline::RunLock>> ClaimOutputFolder(const std::string& out);
// config.yaml, env.json, inputs.yaml and a first run.json.
Status WriteProvenance(pipeline::RunFolder& run, const config::Node& config, const pipeline::Workload& workload);
// The run folder, every step with its status, the artifacts and the status.
void PrintSummary(const pipeline::RunFolder& run, pipeline::RunStatus status);

}  // namespace llmpo::cli
