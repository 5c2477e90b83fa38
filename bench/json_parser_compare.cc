// Which JSON parser the Kineto importer uses, by measurement: the time to go
// through a whole trace file with (1) nlohmann's SAX parser and a handler
// that ignores everything (streaming; gives a float's text), (2) simdjson's
// DOM parser (needs the whole file in memory, padded), (3) our pull reader
// (src/ingest/kineto/json_pull.cc) building the importer's compact records
// (ReadTrace). Build and run (not part of the CMake build):
//
//   g++ -std=c++20 -O2 -I. bench/json_parser_compare.cc src/ingest/kineto/{json_pull,byte_source,trace_reader}.cc \
//       src/model/diagnostics.cc src/model/diagnostic_codes.cc -lsimdjson -lz -lfmt -o /tmp/json_compare
//   /tmp/json_compare TRACE.json
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "src/ingest/kineto/byte_source.h"
#include "src/ingest/kineto/trace_reader.h"

namespace {

struct NullSax : nlohmann::json_sax<nlohmann::json> {
  std::size_t values = 0;
  bool null() override { return ++values; }
  bool boolean(bool) override { return ++values; }
  bool number_integer(number_integer_t) override { return ++values; }
  bool number_unsigned(number_unsigned_t) override { return ++values; }
  bool number_float(number_float_t, const string_t&) override { return ++values; }
  bool string(string_t&) override { return ++values; }
  bool binary(binary_t&) override { return ++values; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string path = argv[1];
  std::ifstream probe(path, std::ios::binary | std::ios::ate);
  const double mb = static_cast<double>(probe.tellg()) / 1e6;
  {
    auto t0 = std::chrono::steady_clock::now();
    std::ifstream in(path, std::ios::binary);
    NullSax sax;
    const bool ok = nlohmann::json::sax_parse(in, &sax);
    const double s = Seconds(t0);
    std::printf("nlohmann SAX (stream)      %6.2f s  %7.1f MB/s  ok=%d values=%zu\n", s, mb / s, ok, sax.values);
  }
  {
    auto t0 = std::chrono::steady_clock::now();
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    const auto error = parser.load(path).get(doc);
    const double s = Seconds(t0);
    std::printf("simdjson DOM (whole file)  %6.2f s  %7.1f MB/s  ok=%d (holds the file and its tape in memory)\n", s,
                mb / s, error == simdjson::SUCCESS);
  }
  {
    auto t0 = std::chrono::steady_clock::now();
    std::string why;
    auto source = llmpo::ingest::kineto::OpenFileSource(path, why);
    llmpo::ingest::kineto::TraceStore store;
    llmpo::model::Diagnostics diagnostics;
    const auto outcome = llmpo::ingest::kineto::ReadTrace(*source, store, diagnostics, path);
    const double s = Seconds(t0);
    std::printf("our pull reader + records  %6.2f s  %7.1f MB/s  ok=%d events=%llu\n", s, mb / s, outcome.error.empty(),
                static_cast<unsigned long long>(store.events));
  }
  return 0;
}
