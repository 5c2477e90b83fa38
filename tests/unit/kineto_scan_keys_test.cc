// The Kineto reader's indexed path recognises the keys it keeps from their
// bytes (event_scan.cc, QuickKey) and takes ": " and ", " in one step: keys
// that only start like a kept one, keys with escapes, kept keys in the wrong
// object, and separators with other spacing must read exactly as the
// byte-by-byte path reads them, wherever the buffer ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "src/ingest/kineto/byte_source.h"
#include "src/ingest/kineto/trace_reader.h"
#include "src/model/diagnostics.h"

namespace llmpo::ingest::kineto {
namespace {

class TextSource : public ByteSource {
 public:
  explicit TextSource(std::string text) : text_(std::move(text)) {}
  std::size_t Read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min(size, text_.size() - at_);
    std::memcpy(buffer, text_.data() + at_, n);
    at_ += n;
    return n;
  }

 private:
  std::string text_;
  std::size_t at_ = 0;
};

// Every record the reader kept, and its error and diagnostics.
std::string Read(const std::string& text, std::size_t buffer, bool indexed) {
  TextSource source(text);
  TraceStore s;
  model::Diagnostics d;
  const ReadOutcome outcome = ReadTrace(source, s, d, "t", buffer, indexed);
  std::string out = "error=" + outcome.error + " events=" + std::to_string(s.events) + "\n";
  for (const auto& g : s.gpu_ops) {
    out += "gpu " + std::to_string(g.start) + " " + std::to_string(g.end) + " " + s.names[g.name] + " " +
           std::to_string(s.lanes[g.lane].device) + " " + std::to_string(s.lanes[g.lane].stream) + " " +
           std::to_string(g.has_correlation) + std::to_string(g.correlation) + " " +
           std::to_string(g.has_external_id) + std::to_string(g.external_id) + "\n";
  }
  for (const auto& c : s.calls) {
    out += "call " + std::to_string(c.start) + " " + s.names[c.name] + " " + s.threads[c.thread] + " " +
           std::to_string(c.has_correlation) + std::to_string(c.correlation) + "\n";
  }
  for (const auto& c : s.cpu_ops) {
    out += "op " + std::to_string(c.start) + " " + s.names[c.name] + " " + std::to_string(c.has_external_id) +
           std::to_string(c.external_id) + "\n";
  }
  for (const auto& [code, entry] : d.entries()) out += code + " " + std::to_string(entry.count) + "\n";
  return out;
}

TEST(KinetoScanKeys, KeysLikeTheKeptOnesReadAsTheByteByBytePathReadsThem) {
  const std::string text = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 2,
   "args": {"External id": 1, "stream": 7, "device": 3, "correlation": 11}},
  {"phx": "M", "ph": "X", "cat": "kernel", "nam": "no", "names": "no", "name": "k2", "pidx": 5, "pid": 1,
   "tid2": 9, "tid": 8, "ts": 20, "tsx": 99, "dur": 3, "durs": 4, "argsx": {"correlation": 99},
   "args": {"External idx": 5, "External id": 2, "devices": 3, "device": 1, "streams": 1, "stream": 8,
            "correlations": 1, "correlation": 12, "name": "not the name", "external id": 3}},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 30, "dur": 1, "correlation": 77,
   "device": 5, "args": {"corr\u0065lation": 13, "Device": 4, "stream" : 9 ,"External id":4}},
  {"ph" : "X" ,"cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":9,"dur":1,
   "args":{"correlation":11}},
  {"ph":	"X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 19, "dur": 1,
   "args": {"correlation": 12,  "cbid": 211}},
  {"ph": "X",  "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 8, "dur": 30,
   "args": {"External id": 1, "Ev Idx": 0}},
  {"p\u0068": "X", "cat": "cpu_op", "name": "escaped ph key", "pid": 1, "tid": 1, "ts": 8, "dur": 30},
  {"ph": "X", "c\"at": "cpu_op", "cat": "cpu_op", "name": "quote in a key", "pid": 1, "tid": 1, "ts": 8, "dur": 3}
]})";
  const std::string whole = Read(text, std::size_t{1} << 20, false);
  // The kept keys were found where they are, and only there.
  EXPECT_NE(whole.find("gpu 10000 12000 k1 3 7 111 11\n"), std::string::npos) << whole;
  EXPECT_NE(whole.find("gpu 20000 23000 k2 1 8 112 13\n"), std::string::npos) << whole;
  EXPECT_NE(whole.find("gpu 30000 31000 k3 0 9 113 14\n"), std::string::npos) << whole;
  EXPECT_NE(whole.find("op 8000 escaped ph key"), std::string::npos) << whole;
  for (std::size_t buffer = 1; buffer <= 700; buffer += (buffer < 80 ? 1 : 37)) {
    EXPECT_EQ(Read(text, buffer, true), Read(text, buffer, false)) << buffer;
  }
  EXPECT_EQ(Read(text, std::size_t{1} << 20, true), whole);
}

}  // namespace
}  // namespace llmpo::ingest::kineto
