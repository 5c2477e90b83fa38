// What `import --partial`, `import -j` and `merge` share: the request the
// config gives, writing a partial, and telling the user what a partial holds.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/cli/parse_args.h"
#include "src/core/result.h"
#include "src/pipeline/import_job.h"
#include "src/pipeline/run_lock.h"
#include "src/report/partial_set.h"

namespace llmpo::cli {

// The import request `import` makes from its config options (no inputs yet).
Result<pipeline::ImportRequest> RequestFromConfig(const ConfigArgs& config, std::size_t top);

// The partial written to `file` atomically; prints what it holds.
Status WritePartial(const report::PartialSet& set, const std::string& file);

// The inputs the partial lists as failed, as warnings on stderr; and each
// data-loss check (a missing rank among them).
void WarnFailedInputs(const report::PartialSet& set);
void WarnDataLoss(const model::Diagnostics& diagnostics);

// Takes the output folder's lock once claimed, so that a stop (Ctrl-C) can
// clean up and release it (import's ImportStop); none: the caller keeps it.
using LockHolder = std::function<void(std::optional<pipeline::RunLock>)>;

// Writes the reports into `request.out_dir` (claimed), printing what was written.
int WriteReportsFromPartial(report::PartialSet set, const pipeline::ImportRequest& request,
                            const LockHolder& hold_lock = {});

// import --partial / import -j N, and import of several timelines (one
// thread): returns the exit code.
int RunPooledImport(const pipeline::ImportRequest& request, const std::string& partial, const std::string& job,
                    unsigned threads, const LockHolder& hold_lock = {});

}  // namespace llmpo::cli
