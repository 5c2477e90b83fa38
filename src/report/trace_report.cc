#include "src/report/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "src/report/json_writer.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

// A JSON string; invalid UTF-8 becomes U+FFFD instead of an exception.
std::string Quoted(std::string_view text) { return JsonQuoted(text); }

// Chrome trace timestamps are microseconds; keep ns precision as decimals.
std::string Us(std::uint64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

constexpr std::uint64_t kStreamTidBase = 1u << 30;  // GPU streams as pseudo-threads

}  // namespace

std::string KernelSummaryCsv(const analysis::TraceSummaries& s) {
  // nsys' columns, plus the mangled name (ncu --kernel-name-base mangled matches it exactly).
  std::string out =
      "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name,Mangled Name\n";
  for (const auto& k : s.kernels) {
    const auto& st = k.stats;
    out += fmt::format("{:.1f},{:.0f},{},{:.1f},{:.1f},{:.0f},{:.0f},{:.1f},{},{}\n", k.share_pct, st.total, st.count,
                       st.avg, st.med, st.min, st.max, st.stddev, CsvField(k.name), CsvField(k.mangled));
  }
  return out;
}

std::string NvtxSummaryCsv(const analysis::TraceSummaries& s) {
  std::string out = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n";
  for (const auto& r : s.ranges) {
    const auto& st = r.stats;
    out += fmt::format("{:.1f},{:.0f},{},{:.1f},{:.1f},{:.0f},{:.0f},{:.1f},{},{}\n", r.share_pct, st.total, st.count,
                       st.avg, st.med, st.min, st.max, st.stddev, r.style, CsvField(r.name));
  }
  return out;
}

std::string NvtxProjectionCsv(const analysis::TraceSummaries& s) {
  std::string out =
      "Range,Style,Total Proj Time (ns),Total Range Time (ns),Range Instances,Proj Avg (ns),Proj Med (ns),"
      "Proj Min (ns),Proj Max (ns),Proj StdDev (ns),Total GPU Ops,Avg GPU Ops,Avg Range Lvl,Avg Num Child\n";
  for (const auto& p : s.projection) {
    const auto& st = p.projected;
    out += fmt::format("{},{},{:.0f},{:.0f},{},{:.1f},{:.1f},{:.0f},{:.0f},{:.1f},{},{:.1f},{:.1f},{:.1f}\n",
                       CsvField(p.range), p.style, st.total, p.total_range_ns, p.instances, st.avg, st.med, st.min,
                       st.max, st.stddev, p.gpu_ops, static_cast<double>(p.gpu_ops) / static_cast<double>(p.instances),
                       p.avg_level, p.avg_children);
  }
  return out;
}

namespace {

// Chrome trace-event JSON for Perfetto: push/pop ranges nest on their thread
// (complete events), start/end ranges may overlap anything (async b/e pairs,
// each its own id), CUDA API calls are slices on their threads, GPU work sits
// on one row per device and stream, and a flow joins each launch to its work.
class ChromeTraceWriter {
 public:
  explicit ChromeTraceWriter(std::ostream& out) : out_(out) {}

  void Trace(const model::TraceData& t) {
    Meta(t.pid, std::nullopt, "process_name", Quoted(t.process));
    for (const auto& [tid, name] : t.thread_names) Meta(t.pid, tid, "thread_name", Quoted(name));
    for (const auto& r : t.ranges) r.push_pop ? PushPop(t, r) : StartEnd(t, r);
    for (const auto& m : t.marks) {
      Event(fmt::format(R"({{"ph":"i","s":"t","cat":{},"name":{},"pid":{},"tid":{},"ts":{}}})", Category(t, m),
                        Quoted(m.name), t.pid, m.tid, Us(m.start)));
    }
    FlowIds(t);
    for (const auto& a : t.api_calls) ApiCall(t, a);
    for (const auto& op : t.gpu_ops) GpuOp(t, op);
  }

 private:
  void Event(const std::string& body) {
    out_ << (first_ ? "" : ",\n") << body;
    first_ = false;
  }

  void Meta(std::int64_t pid, std::optional<std::uint64_t> tid, const char* what, const std::string& quoted_name) {
    Event(fmt::format(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{{"name":{}}}}})", what, pid, tid.value_or(0),
                      quoted_name));
  }

  static std::string Category(const model::TraceData& t, const model::TraceRange& r) {
    const std::string domain = t.DomainName(r.domain);
    return Quoted(domain.empty() ? "NVTX" : "NVTX " + domain);
  }

  static std::uint64_t Dur(std::uint64_t start, std::uint64_t end) { return end > start ? end - start : 0; }

  void PushPop(const model::TraceData& t, const model::TraceRange& r) {
    Event(fmt::format(
        R"({{"ph":"X","cat":{},"name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"style":"PushPop"{}}}}})",
        Category(t, r), Quoted(r.name), t.pid, r.tid, Us(r.start), Us(Dur(r.start, r.end)),
        r.open_at_exit ? ",\"open_at_exit\":true" : ""));
  }

  // An async pair: Perfetto gives overlapping ranges their own tracks
  // instead of dropping complete events that do not nest.
  void StartEnd(const model::TraceData& t, const model::TraceRange& r) {
    const std::uint64_t id = next_id_++;
    Event(fmt::format(
        R"({{"ph":"b","cat":{},"name":{},"id":"0x{:x}","pid":{},"tid":{},"ts":{},"args":{{"style":"StartEnd","range_id":{}{}}}}})",
        Category(t, r), Quoted(r.name), id, t.pid, r.tid, Us(r.start), r.id,
        r.open_at_exit ? ",\"open_at_exit\":true" : ""));
    Event(fmt::format(R"({{"ph":"e","cat":{},"name":{},"id":"0x{:x}","pid":{},"tid":{},"ts":{}}})", Category(t, r),
                      Quoted(r.name), id, t.pid, r.end_tid ? r.end_tid : r.tid, Us(std::max(r.start, r.end))));
  }

  // One flow per API call whose correlation id names GPU work.
  void FlowIds(const model::TraceData& t) {
    flow_of_.clear();
    std::map<std::uint64_t, bool> has_work;
    for (const auto& op : t.gpu_ops) has_work[op.correlation] = true;
    for (const auto& a : t.api_calls) {
      if (has_work.count(a.correlation) && !flow_of_.count(a.correlation)) flow_of_[a.correlation] = next_id_++;
    }
    work_name_.clear();
    for (const auto& op : t.gpu_ops) work_name_.emplace(op.correlation, op.name);
  }

  void ApiCall(const model::TraceData& t, const model::TraceApiCall& a) {
    const std::string name = a.api.empty() ? "CUDA API call" : fmt::format("CUDA {} API call", a.api);
    const auto work = work_name_.find(a.correlation);
    Event(fmt::format(
        R"({{"ph":"X","cat":"cuda_api","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"correlation":{}{}{}}}}})",
        name, t.pid, a.tid, Us(a.start), Us(Dur(a.start, a.end)), a.correlation,
        a.callback_id ? fmt::format(",\"callback_id\":{}", a.callback_id) : "",
        work != work_name_.end() ? ",\"launches\":" + Quoted(work->second) : ""));
    if (const auto flow = flow_of_.find(a.correlation); flow != flow_of_.end()) {
      Event(fmt::format(R"({{"ph":"s","cat":"launch","name":"launch","id":{},"pid":{},"tid":{},"ts":{}}})",
                        flow->second, t.pid, a.tid, Us(a.start)));
    }
  }

  void GpuOp(const model::TraceData& t, const model::TraceGpuOp& op) {
    const std::uint64_t tid = StreamRow(t, op);
    std::string args = fmt::format(R"("device":{},"stream":{},"correlation":{})", op.device, op.stream, op.correlation);
    if (op.kind == 'K') {
      args += fmt::format(R"(,"grid":{},"block":{})", Quoted(op.grid), Quoted(op.block));
    } else {
      args += fmt::format(R"(,"bytes":{})", op.bytes);
    }
    Event(fmt::format(R"({{"ph":"X","cat":"{}","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
                      op.kind == 'K' ? "kernel" : "memory", Quoted(op.name), t.pid, tid, Us(op.start),
                      Us(Dur(op.start, op.end)), args));
    if (const auto flow = flow_of_.find(op.correlation); flow != flow_of_.end()) {
      Event(fmt::format(R"({{"ph":"f","bp":"e","cat":"launch","name":"launch","id":{},"pid":{},"tid":{},"ts":{}}})",
                        flow->second, t.pid, tid, Us(op.start)));
    }
  }

  // GPU rows: pseudo-threads of the process, named by device and stream,
  // sorted after its CPU threads.
  std::uint64_t StreamRow(const model::TraceData& t, const model::TraceGpuOp& op) {
    const std::uint64_t tid = kStreamTidBase + op.device * 100000 + op.stream;
    if (rows_.insert({t.pid, tid}).second) {
      Meta(t.pid, tid, "thread_name", fmt::format("\"GPU {} stream {}\"", op.device, op.stream));
      Event(fmt::format(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                        t.pid, tid, 1000000 + op.device * 1000 + std::min<std::uint64_t>(op.stream, 999)));
    }
    return tid;
  }

  std::ostream& out_;
  bool first_ = true;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::uint64_t> flow_of_;       // correlation -> flow id
  std::multimap<std::uint64_t, std::string> work_name_;  // correlation -> GPU work launched
  std::set<std::pair<std::int64_t, std::uint64_t>> rows_;
};

}  // namespace

void WriteChromeTrace(std::ostream& out, const std::vector<model::TraceData>& traces) {
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  ChromeTraceWriter writer(out);
  for (const auto& t : traces) writer.Trace(t);
  out << "\n]}\n";
}

std::string TraceDataQualityText(const model::Diagnostics& diagnostics) {
  std::string quality = fmt::format("records read: {}\n", diagnostics.rows_read());
  for (const auto& [code, e] : diagnostics.entries()) {
    quality += fmt::format("{} ({}): {} x, e.g. {}\n", code, model::ToString(e.severity), e.count, e.first_example);
  }
  for (const auto& note : diagnostics.notes()) quality += note + "\n";
  return quality;
}

}  // namespace llmpo::report
