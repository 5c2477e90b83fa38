#include "src/report/trace_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

// A JSON string; invalid UTF-8 becomes U+FFFD instead of an exception.
std::string Quoted(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

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

void WriteChromeTrace(std::ostream& out, const std::vector<model::TraceData>& traces) {
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto event = [&](const std::string& body) {
    out << (first ? "" : ",\n") << body;
    first = false;
  };
  for (const auto& t : traces) {
    event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":{}}}}})", t.pid, Quoted(t.process)));
    for (const auto& [tid, name] : t.thread_names) {
      event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", t.pid, tid,
                        Quoted(name)));
    }
    for (const auto& r : t.ranges) {
      const std::string domain = t.DomainName(r.domain);
      event(fmt::format(
          R"({{"ph":"X","cat":{},"name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"style":"{}"{}}}}})",
          Quoted(domain.empty() ? "NVTX" : "NVTX " + domain), Quoted(r.name), t.pid, r.tid, Us(r.start),
          Us(r.end - r.start), r.push_pop ? "PushPop" : "StartEnd", r.open_at_exit ? ",\"open_at_exit\":true" : ""));
    }
    for (const auto& m : t.marks) {
      event(fmt::format(R"({{"ph":"i","s":"t","cat":"NVTX","name":{},"pid":{},"tid":{},"ts":{}}})", Quoted(m.name),
                        t.pid, m.tid, Us(m.start)));
    }
    std::map<std::pair<std::uint32_t, std::uint64_t>, bool> streams;
    for (const auto& op : t.gpu_ops) {
      const std::uint64_t tid = kStreamTidBase + op.device * 100000 + op.stream;
      if (!streams[{op.device, op.stream}]) {
        streams[{op.device, op.stream}] = true;
        event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"GPU {} stream {}"}}}})",
                          t.pid, tid, op.device, op.stream));
      }
      event(fmt::format(
          R"({{"ph":"X","cat":"{}","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"correlation":{}}}}})",
          op.kind == 'K' ? "kernel" : "memory", Quoted(op.name), t.pid, tid, Us(op.start), Us(op.end - op.start),
          op.correlation));
    }
  }
  out << "\n]}\n";
}

}  // namespace llmpo::report
