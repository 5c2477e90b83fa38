// Our tracer's file format (tracer/README.md), shared by the tracer that
// writes it (tracer/) and the importer that reads it
// (src/ingest/llmpo_trace.cc): the header line and the letter that opens
// each record. One tab-separated record per line.
#pragma once

#include <string_view>

namespace llmpo::trace_format {

inline constexpr std::string_view kHeaderPrefix = "#llmpo-trace ";  // then the version
inline constexpr std::string_view kHeader = "#llmpo-trace 1";

// Record letters.
inline constexpr char kProcess = 'P';        // pid executable clock [host rank]
inline constexpr char kDomain = 'D';         // id name
inline constexpr char kThreadName = 'T';     // tid name
inline constexpr char kPushPopRange = 'R';   // tid domain depth start end name [open]
inline constexpr char kStartEndRange = 'S';  // id domain start_tid end_tid start end name [open]
inline constexpr char kMark = 'M';           // tid domain ts name
inline constexpr char kKernel = 'K';         // device context stream correlation start end grid block name
inline constexpr char kMemcpy = 'Y';         // device stream correlation start end bytes [copy kind]
inline constexpr char kMemset = 'Z';         // device stream correlation start end bytes
inline constexpr char kApiCall = 'A';        // tid correlation start end api cbid
inline constexpr char kGpuTraced = 'G';      // "cupti": CUPTI was active
inline constexpr char kClockOffset = 'C';    // CUPTI's clock minus ours
inline constexpr char kWarning = 'X';        // code [details...]: the tracer's own warnings
inline constexpr char kEnd = 'E';            // ts reason: the end marker
inline constexpr char kWallClock = 'W';      // monotonic_ns unix_ns: both clocks read together

}  // namespace llmpo::trace_format
