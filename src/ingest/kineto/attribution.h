// Links what a Kineto trace recorded: each GPU op to the host call that
// launched it (correlation id), that call to the user annotations and CPU ops
// open on its thread when it started (time containment; the innermost CPU op
// by External id where the trace carries a real one), then pushes launches,
// annotation ranges and the GPU breakdown into the sink.
#pragma once

#include <string>

#include "src/ingest/importer.h"
#include "src/ingest/kineto/trace_store.h"

namespace llmpo::ingest::kineto {

// `label` names the input in messages and reports (a file, or archive:member).
// The store's GPU ops and calls are dropped on the way (read them before).
void EmitTrace(TraceStore& store, const std::string& label, ImportContext& ctx);

// Which process a trace describes: its rank from distributedInfo and the
// pid of its CPU events.
model::ProcessId ProcessOf(const TraceStore& store);

}  // namespace llmpo::ingest::kineto
