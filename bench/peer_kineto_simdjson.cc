// A peer for the Kineto import benchmark (bench/run_import_targets.py):
// simdjson's On-Demand API (Debian's libsimdjson-dev) reading a plain
// Kineto trace and doing the smallest useful part of an import: for every
// event of category "kernel"/"Kernel", count it and add its `dur` (float
// microseconds) to its name's total. It does less than our import (no
// correlation join, regions, CPU ops or busy unions), so it is a lower bound
// on what a simdjson-based importer would cost. On-Demand needs the whole
// file in memory (padded), so its peak RSS is at least the file's size.
//
//   g++ -std=c++20 -O2 bench/peer_kineto_simdjson.cc -lsimdjson -o peer
//   peer TRACE.json      -> {"kernels": N, "total_us": X, "names": M}
#include <simdjson.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>

namespace {

struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct KernelSum {
  long long calls = 0;
  double total_us = 0;
};

using Sums = std::unordered_map<std::string, KernelSum, NameHash, std::equal_to<>>;

bool IsKernelCategory(std::string_view cat) { return cat == "kernel" || cat == "Kernel"; }

// One event's fields, in whatever order the producer wrote them.
simdjson::error_code ReadEvent(simdjson::ondemand::object event, Sums& sums) {
  std::string_view cat, name;
  double dur = 0;
  bool has_dur = false;
  for (auto field : event) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) return err;
    if (key == "cat") {
      if (auto err = field.value().get_string().get(cat)) return err;
    } else if (key == "name") {
      if (auto err = field.value().get_string().get(name)) return err;
    } else if (key == "dur") {
      if (field.value().get_double().get(dur) == simdjson::SUCCESS) has_dur = true;
    }
  }
  if (!IsKernelCategory(cat)) return simdjson::SUCCESS;
  auto it = sums.find(name);
  if (it == sums.end()) it = sums.emplace(std::string(name), KernelSum{}).first;
  it->second.calls += 1;
  if (has_dur) it->second.total_us += dur;
  return simdjson::SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TRACE.json\n", argv[0]);
    return 2;
  }
  simdjson::padded_string text;
  if (auto err = simdjson::padded_string::load(argv[1]).get(text)) {
    std::fprintf(stderr, "cannot read %s: %s\n", argv[1], simdjson::error_message(err));
    return 1;
  }
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::array events;
  if (auto err = parser.iterate(text).get(doc)) {
    std::fprintf(stderr, "parse error: %s\n", simdjson::error_message(err));
    return 1;
  }
  if (auto err = doc["traceEvents"].get_array().get(events)) {
    std::fprintf(stderr, "no traceEvents array: %s\n", simdjson::error_message(err));
    return 1;
  }
  Sums sums;
  for (auto element : events) {
    simdjson::ondemand::object event;
    if (auto err = element.get_object().get(event)) {
      std::fprintf(stderr, "event is not an object: %s\n", simdjson::error_message(err));
      return 1;
    }
    if (auto err = ReadEvent(event, sums)) {
      std::fprintf(stderr, "bad event: %s\n", simdjson::error_message(err));
      return 1;
    }
  }
  long long kernels = 0;
  double total_us = 0;
  for (const auto& [name, sum] : sums) {
    kernels += sum.calls;
    total_us += sum.total_us;
  }
  std::printf("{\"kernels\": %lld, \"total_us\": %.6f, \"names\": %zu}\n", kernels, total_us, sums.size());
  return 0;
}
