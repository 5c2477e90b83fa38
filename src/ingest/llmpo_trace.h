// Our tracer's output (tracer/README.md): one tab-separated text file per
// process. Pure: bytes in, a TraceData and diagnostics out. Bad lines are
// counted; a file without its end marker is reported as truncated.
#pragma once

#include <istream>
#include <string>

#include "src/core/result.h"
#include "src/ingest/importer.h"
#include "src/model/diagnostics.h"
#include "src/model/trace.h"

namespace llmpo::ingest {

using model::TraceData;

Result<TraceData> ImportLlmpoTrace(std::istream& in, const std::string& source, model::Diagnostics& diagnostics);

// The trace as records for the kernel table and the region report: one
// launch per kernel, with the NVTX ranges open on its launching thread when
// the launch call was made (the GPU-projection rule, as for nsys exports).
Status ImportLlmpoTraceRecords(std::istream& in, ImportContext& ctx);
// The same records from a trace already read (a traced run reads its
// traces once: for its summaries, trace.json and these records).
void EmitLlmpoTraceRecords(const TraceData& trace, ImportContext& ctx);

// Decodes the tracer's escapes (\t \n \r \\).
std::string UnescapeTraceText(std::string_view text);

}  // namespace llmpo::ingest
