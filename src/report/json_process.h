// How every JSON report names a process: "process" is the label people read
// ("rank 3", "python3 (1234)"), "process_identity" the fields programs
// match on, each null when the source did not say.
#pragma once

#include "src/model/process_id.h"
#include "src/report/json_writer.h"

namespace llmpo::report {

void WriteProcessMembers(JsonWriter& w, const model::ProcessId& process);

}  // namespace llmpo::report
