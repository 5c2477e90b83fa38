#include "src/ingest/llmpo_trace.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "src/core/utf8.h"
#include "src/ingest/range_sweep.h"
#include "src/model/trace_format.h"

namespace llmpo::ingest {
namespace {

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t begin = 0;
  for (std::size_t tab; (tab = line.find('\t', begin)) != std::string_view::npos; begin = tab + 1) {
    fields.push_back(line.substr(begin, tab - begin));
  }
  fields.push_back(line.substr(begin));
  return fields;
}

template <typename T>
bool Num(std::string_view text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// CUPTI names C++ kernels by their mangled names; tables show them demangled.
std::string Demangled(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? text : name;
  std::free(text);
  return out;
}

const char* CopyKindName(std::uint64_t kind) {
  switch (kind) {  // CUpti_ActivityMemcpyKind
    case 1:
      return "[CUDA memcpy Host-to-Device]";
    case 2:
      return "[CUDA memcpy Device-to-Host]";
    case 8:
      return "[CUDA memcpy Device-to-Device]";
    case 10:
      return "[CUDA memcpy Peer-to-Peer]";
    default:
      return "[CUDA memcpy]";
  }
}

// One parsed line; false when its fields do not fit its kind.
bool ParseLine(const std::vector<std::string_view>& f, TraceData& t) {
  const char kind = f[0].size() == 1 ? f[0][0] : '?';
  switch (kind) {
    case trace_format::kProcess:
      if (f.size() < 3 || !Num(f[1], t.pid)) return false;
      t.process = UnescapeTraceText(f[2]);
      if (f.size() > 4) t.host = UnescapeTraceText(f[4]);  // newer tracers: host, rank ("" : none)
      if (std::int64_t rank = 0; f.size() > 5 && Num(f[5], rank)) t.rank = rank;
      return true;
    case trace_format::kDomain: {
      std::uint64_t id = 0;
      if (f.size() < 3 || !Num(f[1], id)) return false;
      t.domains[id] = UnescapeTraceText(f[2]);
      return true;
    }
    case trace_format::kThreadName: {
      std::uint32_t tid = 0;
      if (f.size() < 3 || !Num(f[1], tid)) return false;
      t.thread_names[tid] = UnescapeTraceText(f[2]);
      return true;
    }
    case trace_format::kPushPopRange: {  // tid domain depth start end name [open]
      model::TraceRange r;
      if (f.size() < 7 || !Num(f[1], r.tid) || !Num(f[2], r.domain) || !Num(f[3], r.depth) || !Num(f[4], r.start) ||
          !Num(f[5], r.end) || r.end < r.start) {
        return false;
      }
      r.name = UnescapeTraceText(f[6]);
      r.open_at_exit = f.size() > 7 && f[7] == "open";
      t.ranges.push_back(std::move(r));
      return true;
    }
    case trace_format::kStartEndRange: {  // id domain start_tid end_tid start end name [open]
      model::TraceRange r;
      r.push_pop = false;
      if (f.size() < 8 || !Num(f[1], r.id) || !Num(f[2], r.domain) || !Num(f[3], r.tid) || !Num(f[4], r.end_tid) ||
          !Num(f[5], r.start) || !Num(f[6], r.end) || r.end < r.start) {
        return false;
      }
      r.name = UnescapeTraceText(f[7]);
      r.open_at_exit = f.size() > 8 && f[8] == "open";
      t.ranges.push_back(std::move(r));
      return true;
    }
    case trace_format::kMark: {  // tid domain ts name
      model::TraceRange r;
      if (f.size() < 5 || !Num(f[1], r.tid) || !Num(f[2], r.domain) || !Num(f[3], r.start)) return false;
      r.end = r.start;
      r.name = UnescapeTraceText(f[4]);
      t.marks.push_back(std::move(r));
      return true;
    }
    case trace_format::kKernel: {  // device context stream correlation start end grid block name
      model::TraceGpuOp op;
      std::uint64_t context = 0;
      if (f.size() < 10 || !Num(f[1], op.device) || !Num(f[2], context) || !Num(f[3], op.stream) ||
          !Num(f[4], op.correlation) || !Num(f[5], op.start) || !Num(f[6], op.end) || op.end < op.start) {
        return false;
      }
      op.grid = std::string(f[7]);
      op.block = std::string(f[8]);
      op.mangled = UnescapeTraceText(f[9]);
      op.name = Demangled(op.mangled);
      t.gpu_ops.push_back(std::move(op));
      return true;
    }
    case trace_format::kMemcpy:
    case trace_format::kMemset: {  // device stream correlation start end bytes [copy kind]
      model::TraceGpuOp op;
      op.kind = kind;
      std::uint64_t copy_kind = 0;
      if (f.size() < 7 || !Num(f[1], op.device) || !Num(f[2], op.stream) || !Num(f[3], op.correlation) ||
          !Num(f[4], op.start) || !Num(f[5], op.end) || !Num(f[6], op.bytes) || op.end < op.start) {
        return false;
      }
      if (kind == trace_format::kMemcpy && f.size() > 7 && !Num(f[7], copy_kind)) return false;
      op.name = kind == trace_format::kMemcpy ? CopyKindName(copy_kind) : "[CUDA memset]";
      t.gpu_ops.push_back(std::move(op));
      return true;
    }
    case trace_format::kApiCall: {  // tid correlation start end api cbid
      model::TraceApiCall a;
      if (f.size() < 5 || !Num(f[1], a.tid) || !Num(f[2], a.correlation) || !Num(f[3], a.start) || !Num(f[4], a.end)) {
        return false;
      }
      if (f.size() > 5 && (f[5] == "runtime" || f[5] == "driver")) a.api = std::string(f[5]);
      if (f.size() > 6 && !Num(f[6], a.callback_id)) a.callback_id = 0;
      t.api_calls.push_back(a);
      return true;
    }
    case trace_format::kGpuTraced:
      t.gpu_traced = true;
      return true;
    case trace_format::kClockOffset:  // CUPTI's clock minus ours
      return f.size() >= 2 && Num(f[1], t.cupti_clock_offset);
    case trace_format::kEnd:
      t.complete = true;
      return true;
    case trace_format::kWallClock: {  // monotonic_ns unix_ns
      model::WallClockSample w;
      if (f.size() < 3 || !Num(f[1], w.monotonic_ns) || !Num(f[2], w.unix_ns)) return false;
      t.wall_clock.push_back(w);
      return true;
    }
    case trace_format::kWarning:
      return true;  // tracer-side problems: handled by the caller
    default:
      return false;
  }
}

}  // namespace

std::string UnescapeTraceText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
  }
  return out;
}

namespace {

// Each byte of a name that is not UTF-8 becomes U+FFFD, so every report gets
// text; how many is said once per trace (invalid_utf8).
void RepairNames(TraceData& t, const std::string& source, model::Diagnostics& diagnostics) {
  std::size_t replaced = ReplaceInvalidUtf8(t.process) + ReplaceInvalidUtf8(t.host);
  for (auto& [id, name] : t.domains) replaced += ReplaceInvalidUtf8(name);
  for (auto& [tid, name] : t.thread_names) replaced += ReplaceInvalidUtf8(name);
  for (auto* ranges : {&t.ranges, &t.marks}) {
    for (auto& r : *ranges) replaced += ReplaceInvalidUtf8(r.name);
  }
  for (auto& op : t.gpu_ops) {
    for (std::string* text : {&op.name, &op.mangled, &op.grid, &op.block}) replaced += ReplaceInvalidUtf8(*text);
  }
  if (replaced == 0) return;
  diagnostics.Add(model::Diag::invalid_utf8, fmt::format("{}: {} byte(s) of names are not UTF-8; each shown as U+FFFD", source, replaced));
}

}  // namespace

Result<TraceData> ImportLlmpoTrace(std::istream& in, const std::string& source, model::Diagnostics& diagnostics) {
  std::string line;
  if (!std::getline(in, line) || !line.starts_with(trace_format::kHeaderPrefix)) {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: not an llm-perf-opt trace (no '#llmpo-trace' header)", source));
  }
  if (line != trace_format::kHeader) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: unsupported trace version '{}'", source, line.substr(13)))
        .WithNote("this build reads version 1; trace again with this build's tracer");
  }
  TraceData t;
  t.domains[0] = "";
  std::uint64_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    if (line.starts_with(trace_format::kHeaderPrefix)) {
      // The process called exec: the new image appends to the same file
      // (same pid) with its own header. What the old image still held in its
      // buffers was never written.
      diagnostics.AddLazy(model::Diag::trace_exec, [&] {
        return fmt::format(
            "{}:{}: the process replaced its program (exec); what the old program had not yet written is lost: "
            "its ranges still open, and those it closed after its last write (the tracer writes at most 10 ms after "
            "a top-level range ends)",
            source, line_no);
      });
      t.complete = false;  // the new program must end with its own end marker
      continue;
    }
    diagnostics.CountRow();
    const auto fields = SplitTabs(line);
    if (!ParseLine(fields, t)) {
      diagnostics.AddLazy(model::Diag::bad_trace_line, [&] {
        return fmt::format("{}:{}: unreadable record '{}'; skipped", source, line_no, line.substr(0, 80));
      });
      continue;
    }
    if (fields[0] == std::string_view(&trace_format::kWarning, 1) && fields.size() > 1) {
      const std::string code(fields[1]);
      // The tracer's own warnings; a code this version does not know keeps
      // its name in the example.
      const model::Diag diag = model::DiagFromName("tracer_" + code).value_or(model::Diag::tracer_unknown_warning);
      diagnostics.AddLazy(diag,
                          [&] { return fmt::format("{}:{}: the tracer reported {}", source, line_no, code); });
    }
  }
  if (t.cupti_clock_offset != 0) {  // CUPTI records onto the NVTX clock
    const auto shift = [&](std::uint64_t& v) {
      v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v) - t.cupti_clock_offset);
    };
    for (auto& op : t.gpu_ops) {
      shift(op.start);
      shift(op.end);
    }
    for (auto& a : t.api_calls) {
      shift(a.start);
      shift(a.end);
    }
  }
  RepairNames(t, source, diagnostics);
  if (!t.complete) {
    diagnostics.Add(model::Diag::trace_truncated,
                    fmt::format("{}: no end marker: the process did not exit normally (_exit, a crash, a kill); "
                                "what it had not yet written is lost: its ranges still open, and those it closed "
                                "after its last write (the tracer writes at most 10 ms after a top-level range ends)",
                                source));
  }
  for (const auto& r : t.ranges) {
    if (r.open_at_exit) {
      diagnostics.AddLazy(model::Diag::range_open_at_exit, [&] {
        return fmt::format("{}: range '{}' was still open at exit; it ends at the exit time", source,
                           model::Excerpt(r.name));
      });
    }
  }
  return t;
}

namespace {

// The launch function's name from CUPTI's callback id (cupti_runtime_cbid.h,
// cupti_driver_cbid.h; the two APIs number separately), as nsys names it.
std::string LaunchCallName(const model::TraceApiCall& call) {
  struct Known {
    std::string_view api;
    std::uint32_t cbid;
    std::string_view name;
  };
  static constexpr Known kKnown[] = {
      {"runtime", 211, "cudaLaunchKernel"}, {"runtime", 430, "cudaLaunchKernelExC"},
      {"runtime", 311, "cudaGraphLaunch"},  {"driver", 307, "cuLaunchKernel"},
      {"driver", 652, "cuLaunchKernelEx"},
  };
  for (const auto& k : kKnown) {
    if (k.api == call.api && k.cbid == call.callback_id) return std::string(k.name);
  }
  if (call.callback_id == 0) return call.api.empty() ? "" : call.api + " API call";
  return fmt::format("{} API cbid {}", call.api.empty() ? "CUDA" : call.api, call.callback_id);
}

void SetLaunchCall(const model::TraceApiCall& call, model::LaunchRecord& launch) {
  launch.launch_call_start_ns = static_cast<std::int64_t>(call.start);
  launch.launch_call_end_ns = static_cast<std::int64_t>(call.end);
  launch.launch_call_name = LaunchCallName(call);
  launch.launch_thread = std::to_string(call.tid);
}

std::string Dims(const std::string& xyz) {  // "256,1,1" -> "(256, 1, 1)", ncu's spelling
  std::string out = "(";
  for (char c : xyz) out += c == ',' ? std::string(", ") : std::string(1, c);
  return out + ")";
}

}  // namespace

Status ImportLlmpoTraceRecords(std::istream& in, ImportContext& ctx) {
  ASSIGN_OR_RETURN(const TraceData t, ImportLlmpoTrace(in, ctx.source, ctx.diagnostics));
  EmitLlmpoTraceRecords(t, ctx);
  return OkStatus();
}

void EmitLlmpoTraceRecords(const TraceData& t, ImportContext& ctx) {
  RangesByThread ranges;
  for (std::size_t i = 0; i < t.ranges.size(); ++i) {
    const auto& r = t.ranges[i];
    ranges[r.tid].push_back(
        ThreadRange{static_cast<std::int64_t>(r.start), static_cast<std::int64_t>(r.end), r.push_pop,
                    model::NvtxFrame{t.DomainName(r.domain), r.name, static_cast<std::int64_t>(i)}});
  }
  for (auto& [tid, list] : ranges) {
    // By start; at equal starts the outer (longer) range first.
    std::stable_sort(list.begin(), list.end(), [](const ThreadRange& a, const ThreadRange& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
  }
  std::unordered_map<std::uint64_t, const model::TraceApiCall*> call_of;
  for (const auto& a : t.api_calls) call_of[a.correlation] = &a;
  struct Pending {
    std::int64_t tid, call_start;
    const model::TraceGpuOp* op;
    const model::TraceApiCall* call;
  };
  std::vector<Pending> kernels;
  for (const auto& op : t.gpu_ops) {
    auto it = call_of.find(op.correlation);
    if (it == call_of.end()) {
      ctx.diagnostics.AddLazy(model::Diag::kernel_without_launch_call, [&] {
        return fmt::format(
            "{}: GPU operation '{}' (correlation {}) has no recorded launch call; it is outside every range",
            ctx.source, model::Excerpt(op.name), op.correlation);
      });
      kernels.push_back({-1, 0, &op, nullptr});
      continue;
    }
    kernels.push_back({it->second->tid, static_cast<std::int64_t>(it->second->start), &op, it->second});
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const Pending& a, const Pending& b) {
    return a.tid != b.tid ? a.tid < b.tid : a.call_start < b.call_start;
  });
  model::ProcessId process;
  process.name = t.process.substr(t.process.rfind('/') + 1);
  process.pid = t.pid;
  process.host = t.host;
  process.rank = t.rank;
  for (std::size_t i = 0; i < t.ranges.size(); ++i) {  // CPU range times and the tree, GPU work or not
    const auto& r = t.ranges[i];
    model::NvtxRange range;
    range.name = r.name;
    range.domain = t.DomainName(r.domain);
    range.process = process;
    range.push_pop = r.push_pop;
    range.start_ns = static_cast<std::int64_t>(r.start);
    range.end_ns = static_cast<std::int64_t>(r.end);
    range.global_tid = r.tid;
    range.range_id = static_cast<std::int64_t>(i);
    range.depth = r.depth;
    range.unix_offset_ns = t.UnixOffset();
    ctx.sink.OnNvtxRange(range);
  }
  RangeSweep sweep(ranges);
  for (const auto& k : kernels) {
    model::LaunchRecord launch;
    launch.result_id = std::to_string(k.op->correlation);
    launch.kernel_name = k.op->name;
    launch.process = process;
    launch.device = std::to_string(k.op->device);
    if (k.op->kind == trace_format::kKernel) {
      launch.grid_size = Dims(k.op->grid);
      launch.block_size = Dims(k.op->block);
      if (k.call != nullptr) SetLaunchCall(*k.call, launch);
    } else {
      launch.kind = k.op->kind == trace_format::kMemcpy ? model::LaunchKind::kMemcpy : model::LaunchKind::kMemset;
    }
    launch.start_ns = static_cast<std::int64_t>(k.op->start);
    launch.end_ns = static_cast<std::int64_t>(k.op->end);
    launch.duration_ns = static_cast<double>(k.op->end - k.op->start);
    launch.stream = static_cast<std::int64_t>(k.op->stream);
    launch.correlation_id = static_cast<std::int64_t>(k.op->correlation);
    launch.has_nvtx = true;
    if (k.tid >= 0) {
      launch.global_tid = k.tid;
      sweep.Attribute(k.tid, k.call_start, launch);
    }
    ctx.sink.OnLaunch(launch);
  }
}

}  // namespace llmpo::ingest
