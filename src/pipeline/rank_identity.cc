#include "src/pipeline/rank_identity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

constexpr std::array<const char*, 5> kRank = {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                              "SLURM_PROCID"};
constexpr std::array<const char*, 4> kLocalRank = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                                   "SLURM_LOCALID"};
constexpr std::array<const char*, 4> kWorldSize = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                                   "SLURM_NTASKS"};
// Recorded as they are, for the node and for telling launchers apart.
constexpr std::array<const char*, 9> kOther = {"LOCAL_WORLD_SIZE", "GROUP_RANK",      "SLURM_NODEID",
                                               "SLURMD_NODENAME",  "SLURM_JOB_ID",    "SLURM_STEP_ID",
                                               "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "TORCHELASTIC_RUN_ID"};

std::optional<std::int64_t> Number(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::int64_t n = 0;
  const char* end = text + strlen(text);
  auto [at, ec] = std::from_chars(text, end, n);
  if (ec != std::errc() || at != end || n < 0) return std::nullopt;
  return n;
}

// The first variable of `names` that holds a number; every one set is recorded.
template <std::size_t N>
std::optional<std::int64_t> First(const GetEnv& getenv, const std::array<const char*, N>& names, std::string& from,
                                  std::map<std::string, std::string>& seen) {
  std::optional<std::int64_t> found;
  for (const char* name : names) {
    const char* value = getenv(name);
    if (value == nullptr) continue;
    seen[name] = value;
    if (!found && (found = Number(value))) from = name;
  }
  return found;
}

Json Opt(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }
Json Text(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

std::optional<std::int64_t> OptInt(const Json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
  return j[key].get<std::int64_t>();
}
std::string Str(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string RankList(const std::vector<std::int64_t>& ranks) { return fmt::format("{}", fmt::join(ranks, ", ")); }

std::string Ended(const RankRecord& r) {
  if (r.exit_code) return fmt::format("exited with {}", *r.exit_code);
  if (r.signal) return fmt::format("was ended by signal {} ({})", *r.signal, strsignal(*r.signal));
  return "ended";
}

std::string Who(const RankRecord& r) {
  return r.who.rank ? fmt::format("rank {}", *r.who.rank) : fmt::format("the process {} (no rank variable)", r.pid);
}

// Ranks that failed on their own (not stopped from outside), first to end first.
std::vector<std::string> Failures(std::vector<RankRecord> records) {
  std::stable_sort(records.begin(), records.end(),
                   [](const RankRecord& a, const RankRecord& b) { return a.end_unix_s < b.end_unix_s; });
  std::vector<std::string> out;
  for (const auto& r : records) {
    const bool failed = (r.exit_code && *r.exit_code != 0) || (r.signal && !r.stopped_from_outside);
    if (r.finished && failed) out.push_back(fmt::format("{} {}{}", Who(r), Ended(r), out.empty() ? " (first)" : ""));
  }
  return out;
}

std::vector<std::int64_t> Duplicates(const std::vector<RankRecord>& records) {
  std::map<std::int64_t, int> count;
  for (const auto& r : records) {
    if (r.who.rank) ++count[*r.who.rank];
  }
  std::vector<std::int64_t> out;
  for (const auto& [rank, n] : count) {
    if (n > 1) out.push_back(rank);
  }
  return out;
}

std::vector<std::int64_t> Missing(const std::vector<RankRecord>& records) {
  std::int64_t world = 0;
  std::set<std::int64_t> present;
  for (const auto& r : records) {
    world = std::max(world, r.who.world_size.value_or(0));
    if (r.who.rank) present.insert(*r.who.rank);
  }
  std::vector<std::int64_t> out;
  for (std::int64_t rank = 0; rank < world && rank < 1 << 20; ++rank) {
    if (!present.count(rank)) out.push_back(rank);
  }
  return out;
}

}  // namespace

std::string RankIdentity::Label() const { return rank ? fmt::format("rank{}", *rank) : "rank-unknown"; }

RankIdentity IdentityFromEnv(const GetEnv& getenv, const std::string& host) {
  RankIdentity who;
  who.host = host;
  who.rank = First(getenv, kRank, who.rank_from, who.variables);
  who.local_rank = First(getenv, kLocalRank, who.local_rank_from, who.variables);
  who.world_size = First(getenv, kWorldSize, who.world_size_from, who.variables);
  for (const char* name : kOther) {
    if (const char* value = getenv(name)) who.variables[name] = value;
  }
  for (const char* name : {"SLURMD_NODENAME", "GROUP_RANK", "SLURM_NODEID"}) {
    if (const char* value = getenv(name); value != nullptr && *value != '\0') {
      who.node = value;
      break;
    }
  }
  if (const char* devices = getenv("CUDA_VISIBLE_DEVICES")) who.cuda_visible_devices = devices;
  return who;
}

std::string ExpandRank(const std::string& text, const RankIdentity& who) {
  const std::string number = who.rank ? std::to_string(*who.rank) : "unknown";
  std::string out = text;
  for (auto at = out.find("{rank}"); at != std::string::npos; at = out.find("{rank}", at + number.size())) {
    out.replace(at, 6, number);
  }
  return out;
}

std::string ExpandNcuPeers(const std::string& text, const std::string& ranks, const RankIdentity& who) {
  if (text != kNcuPeers) return text;
  if (ranks != "all") return std::to_string(std::count(ranks.begin(), ranks.end(), ',') + 1);
  return std::to_string(who.world_size.value_or(1));
}

std::string RankRecordJson(const RankRecord& r) {
  Json j = {{"schema", "llm-perf-opt.rank"},
            {"schema_version", "1.0.0"},
            {"step", r.step},
            {"rank", Opt(r.who.rank)},
            {"rank_from", Text(r.who.rank_from)},
            {"local_rank", Opt(r.who.local_rank)},
            {"local_rank_from", Text(r.who.local_rank_from)},
            {"world_size", Opt(r.who.world_size)},
            {"world_size_from", Text(r.who.world_size_from)},
            {"node", Text(r.who.node)},
            {"host", Text(r.who.host)},
            {"cuda_visible_devices", Text(r.who.cuda_visible_devices)},
            {"variables", r.who.variables},
            {"pid", r.pid},
            {"profiled", r.profiled},
            {"finished", r.finished},
            {"exit_code", r.exit_code ? Json(*r.exit_code) : Json(nullptr)},
            {"signal", r.signal ? Json(*r.signal) : Json(nullptr)},
            {"stopped_from_outside", r.stopped_from_outside},
            {"start_unix_s", r.start_unix_s},
            {"end_unix_s", r.finished ? Json(r.end_unix_s) : Json(nullptr)}};
  return j.dump(2) + "\n";
}

Result<RankRecord> ParseRankRecord(const std::string& text, const std::string& file) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return MakeError(ExitStatus::kInput, fmt::format("{} is not a rank record (JSON object)", file));
  RankRecord r;
  r.step = Str(j, "step");
  r.who.rank = OptInt(j, "rank");
  r.who.rank_from = Str(j, "rank_from");
  r.who.local_rank = OptInt(j, "local_rank");
  r.who.local_rank_from = Str(j, "local_rank_from");
  r.who.world_size = OptInt(j, "world_size");
  r.who.world_size_from = Str(j, "world_size_from");
  r.who.node = Str(j, "node");
  r.who.host = Str(j, "host");
  r.who.cuda_visible_devices = Str(j, "cuda_visible_devices");
  if (j.contains("variables") && j["variables"].is_object()) {
    for (const auto& [k, v] : j["variables"].items()) r.who.variables[k] = v.is_string() ? v.get<std::string>() : "";
  }
  r.pid = OptInt(j, "pid").value_or(0);
  r.profiled = j.value("profiled", true);
  r.finished = j.value("finished", false);
  if (auto code = OptInt(j, "exit_code")) r.exit_code = static_cast<int>(*code);
  if (auto sig = OptInt(j, "signal")) r.signal = static_cast<int>(*sig);
  r.stopped_from_outside = j.value("stopped_from_outside", false);
  if (j.contains("start_unix_s") && j["start_unix_s"].is_number()) r.start_unix_s = j["start_unix_s"].get<double>();
  if (j.contains("end_unix_s") && j["end_unix_s"].is_number()) r.end_unix_s = j["end_unix_s"].get<double>();
  return r;
}

std::vector<RankRecord> ReadRankRecords(const std::string& dir, const std::string& step) {
  std::vector<std::pair<std::string, RankRecord>> found;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(step + ".rank") || !name.ends_with(".json")) continue;
    std::ifstream in(it->path());
    std::stringstream text;
    text << in.rdbuf();
    if (auto r = ParseRankRecord(text.str(), it->path().string()); r.ok()) found.emplace_back(name, *r);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second.who.rank.value_or(-1), a.first) < std::pair(b.second.who.rank.value_or(-1), b.first);
  });
  std::vector<RankRecord> out;
  for (auto& [name, r] : found) out.push_back(std::move(r));
  return out;
}

std::string RankProblems(const std::vector<RankRecord>& records, bool timed_out) {
  std::vector<std::string> problems;
  if (auto failed = Failures(records); !failed.empty()) problems.push_back(fmt::format("{}", fmt::join(failed, "; ")));
  std::vector<std::int64_t> stopped, running;
  for (const auto& r : records) {
    if (r.finished && r.stopped_from_outside) stopped.push_back(r.who.rank.value_or(-1));
    if (!r.finished) running.push_back(r.who.rank.value_or(-1));
  }
  if (!stopped.empty() && timed_out) {
    problems.push_back(fmt::format("rank(s) {} still running at the step timeout (hung, or waiting for one that "
                                   "hung) and stopped",
                                   RankList(stopped)));
  } else if (!stopped.empty()) {
    problems.push_back(fmt::format("rank(s) {} stopped by a signal from outside (the launcher ends the others when "
                                   "one fails)",
                                   RankList(stopped)));
  }
  if (!running.empty()) {
    problems.push_back(fmt::format("rank(s) {} left no end record (killed with SIGKILL, or the node was lost)",
                                   RankList(running)));
  }
  if (auto dup = Duplicates(records); !dup.empty()) {
    problems.push_back(fmt::format("rank(s) {} claimed by two or more processes (a rank variable set by an outer "
                                   "launcher or a script?); see ranks/",
                                   RankList(dup)));
  }
  if (auto missing = Missing(records); !missing.empty()) {
    problems.push_back(fmt::format("rank(s) {} of the world size left no record (never started?)", RankList(missing)));
  }
  return fmt::format("{}", fmt::join(problems, "; "));
}

std::string RankSummary(const std::vector<RankRecord>& records) {
  std::set<std::string> hosts;
  std::vector<std::int64_t> ranks;
  int profiled = 0;
  for (const auto& r : records) {
    hosts.insert(r.who.node.empty() ? r.who.host : r.who.host + "/" + r.who.node);
    if (r.who.rank) ranks.push_back(*r.who.rank);
    profiled += r.profiled ? 1 : 0;
  }
  return fmt::format("{} rank(s) ran ({}) on {} host/node(s), {} profiled; identities in ranks/", records.size(),
                     RankList(ranks), hosts.size(), profiled);
}

}  // namespace llmpo::pipeline
