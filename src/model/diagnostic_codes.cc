#include "src/model/diagnostic_codes.h"

namespace llmpo::model {
namespace {

constexpr Severity kInfo = Severity::kInfo;
constexpr Severity kWarning = Severity::kWarning;
constexpr Severity kDataLoss = Severity::kDataLoss;

constexpr DiagnosticCode kCodes[] = {
    // Any CSV input
    {"ragged_row", kDataLoss, "a row with more or fewer fields than the header; skipped"},
    {"ragged_rows_padded", kInfo, "rows one field short (ncu omits a trailing empty rule column); padded"},
    {"truncated_record", kDataLoss, "the file ends inside a quoted field; the last record is lost"},
    {"preamble_lines_skipped", kInfo, "lines before the CSV header (ncu's ==PROF== output); skipped"},
    {"tool_output_lines", kInfo, "ncu console lines inside or after the CSV; skipped"},
    // ncu pages
    {"bad_result_id", kDataLoss, "a details-page row whose ID is not a result number; skipped"},
    {"result_not_contiguous", kDataLoss, "rows of an earlier result reappear after another result; skipped"},
    {"short_row", kDataLoss, "a details-page row ending before its metric columns; skipped"},
    {"row_without_metric", kDataLoss, "a details-page row with no metric name and no rule; skipped"},
    {"bad_rule_row", kDataLoss, "a details-page rule row without a rule name or a known rule type; skipped"},
    {"bad_rule_speedup", kWarning, "a rule's estimated speedup that is not a percentage; the finding has none"},
    {"unknown_columns", kInfo, "details-page columns no ncu version we know writes; ignored"},
    {"no_units_row", kWarning, "a raw page without its units row; values kept as written"},
    {"unparsable_number", kDataLoss, "a metric value made of number characters that does not parse; not aggregated"},
    {"text_value", kInfo, "a metric whose value is a word (a policy, a mode); not aggregated"},
    {"unknown_unit", kWarning, "a unit this tool does not normalise; value kept as written"},
    {"non_finite_number", kDataLoss,
     "a metric value that is NaN or infinite (or becomes so in base units); not aggregated"},
    {"negative_duration", kDataLoss, "a negative duration; the launch has no duration"},
    {"invalid_utf8", kWarning, "names with bytes that are not UTF-8; replaced by U+FFFD"},
    {"duration_not_a_time", kDataLoss, "a duration metric in a unit that is not a time; the launch has no duration"},
    {"bad_invocations", kDataLoss, "a --print-summary row whose invocation count is not a number; skipped"},
    {"summary_without_duration", kWarning, "a --print-summary row without an average duration; no time"},
    {"bad_duration", kDataLoss, "a --print-summary duration that is negative, NaN or infinite; no time"},
    // Nsight Compute reports (.ncu-rep)
    {"ncu_rep_bad_result", kDataLoss, "an .ncu-rep result entry that does not decode; skipped"},
    {"ncu_rep_bad_metric_name", kDataLoss, "an .ncu-rep metric whose name index is past the string table; skipped"},
    {"ncu_rep_missing_entries", kDataLoss, "an .ncu-rep block holding fewer entries than its header announces"},
    {"ncu_rep_entries_skipped", kInfo, "blocks with .ncu-rep entries of a kind not read (ncu 2026 CUDA graphs)"},
    {"ncu_rep_instance_values", kInfo,
     "an .ncu-rep metric with only per-instance values (PM sampling, per opcode); not imported"},
    {"ncu_rep_unit_unknown", kWarning,
     "an .ncu-rep metric the unit catalogue does not know (the file stores no units); kept without a unit"},
    // nsys exports
    {"bad_kernel_row", kDataLoss, "a kernel row without a name or a number where one is needed; skipped"},
    {"bad_gpu_op_row", kDataLoss, "a memcpy/memset row that ends before it starts; skipped"},
    {"bad_value", kDataLoss, "an nsys stats time or count that is negative, NaN or infinite; left unknown"},
    {"bad_range_row", kDataLoss, "an nvtx_pushpop_trace row without start, end or thread; skipped"},
    {"nvtx_range_not_closed", kWarning, "an NVTX range without an end (the program exited inside it)"},
    {"kernel_without_launch_call", kWarning,
     "GPU work whose launching API call is not in the trace; it is outside every range"},
    {"kernels_combined_no_match", kWarning,
     "kernels_combined: no kernel of the timeline has a same-named kernel in the ncu input(s), so none has ncu's "
     "metrics"},
    {"kernel_paired_by_name", kWarning,
     "kernels_combined: a kernel whose timeline launches and ncu results could not be paired one by one "
     "(different counts, several processes); its launches take ncu's aggregate over the name"},
    // Our tracer's traces
    {"bad_trace_line", kDataLoss, "an unreadable trace record; skipped"},
    {"trace_truncated", kDataLoss, "a trace without its end marker: the program was killed or crashed"},
    {"trace_exec", kWarning,
     "the traced process replaced its program (exec); records the old program had not yet written are lost"},
    {"tracer_fd_replaced", kWarning,
     "the program closed the tracer's trace file descriptor; the tracer reopened its file and wrote nothing into "
     "the program's files"},
    {"range_open_at_exit", kWarning, "an NVTX range still open when the program exited; ended at exit"},
    {"tracer_cupti_missing", kWarning, "the tracer found no CUPTI library: no GPU activity was recorded"},
    {"tracer_cupti_unusable", kWarning, "CUPTI was found but could not be used: no GPU activity was recorded"},
    {"tracer_cupti_enable_failed", kWarning, "CUPTI refused an activity kind; that kind was not recorded"},
    {"tracer_cupti_dropped_records", kWarning, "CUPTI dropped activity records (buffers full)"},
    {"tracer_cupti_clock_unknown", kWarning, "CUPTI's clock could not be tied to the tracer's"},
    {"tracer_cupti_thread_ids_not_system", kWarning, "CUPTI gave thread ids that are not the system's"},
    {"tracer_unbalanced_pop", kWarning, "an NVTX pop without a push on that thread"},
    {"tracer_unknown_range_end", kWarning, "an NVTX range end for an id never started"},
    // PyTorch profiler (Kineto) traces
    {"kineto_json_error", kDataLoss,
     "the trace's JSON text is damaged or cut short at the byte named; the events before it are kept"},
    {"kineto_bad_time", kDataLoss, "a duration event without a readable ts or dur; skipped"},
    {"kineto_negative_duration", kDataLoss, "an event that ends before it starts (negative dur); skipped"},
    {"kineto_time_out_of_range", kDataLoss,
     "an event that starts or ends past ±2^62 ns (about 146 years; its end would overflow), skipped; or a "
     "baseTimeNanoseconds that would put the events there, ignored"},
    {"kineto_unknown_category", kInfo, "duration events of a category the importer does not know; ignored"},
    {"kineto_range_truncated", kWarning,
     "an annotation with dur 0 (or none) whose thread goes on: a range cut at the trace window's end; kept open to "
     "the trace's end, its launches attributed to it, its CPU time unknown"},
    // Regions and kernels
    {"nvtx_depth_folded", kWarning,
     "launches or ranges nested deeper than 64 NVTX levels; counted in their ancestor at level 64"},
    {"range_without_duration", kDataLoss, "an ncu range-replay result without a duration; not counted"},
    {"range_ends_before_start", kDataLoss, "an NVTX range that ends before it starts; skipped"},
    {"metric_rule_unknown", kInfo,
     "a metric the metric catalogue does not know; averaged over launches (never summed)"},
    {"metric_unit_conflict", kWarning,
     "values of a metric in a unit that cannot be normalised to the metric's; left out of its aggregate"},
};

}  // namespace

std::span<const DiagnosticCode> AllDiagnosticCodes() { return kCodes; }

const DiagnosticCode* FindDiagnosticCode(std::string_view code) {
  for (const auto& c : kCodes) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

}  // namespace llmpo::model
