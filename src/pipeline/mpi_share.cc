#include "src/pipeline/mpi_share.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <thread>

#include "src/core/atomic_file.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPartialsName = ".mpi-partials";

std::optional<std::int64_t> ParseCount(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string_view s(text);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// One launcher's pair: the rank variable and the size variables to try.
struct RankSource {
  const char* rank;
  std::vector<const char*> sizes;
};

Error Usage(std::string message) {
  return MakeError(ExitStatus::kUsage, std::move(message))
      .WithNote(
          "run it under an MPI launcher, one process per rank: mpirun -np K llm-perf-opt import --mpi FILES... "
          "--out DIR (without a launcher, import FILES... --out DIR does the same work in one process)");
}

std::string JobFromEnv(const MpiGetEnv& getenv, std::string& from) {
  for (const char* name : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"}) {
    const char* v = getenv(name);
    if (v != nullptr && *v != '\0') {
      from = name;
      return v;
    }
  }
  const char* job = getenv("SLURM_JOB_ID");
  const char* step = getenv("SLURM_STEP_ID");
  if (job != nullptr && *job != '\0') {
    from = "SLURM_JOB_ID";
    return step != nullptr && *step != '\0' ? fmt::format("{}.{}", job, step) : std::string(job);
  }
  return "";
}

}  // namespace

Result<MpiRank> MpiRankFromEnv(const MpiGetEnv& getenv) {
  // Innermost first (multirank reference §1.2); each rank variable with the
  // size variables of the same launcher, so an inherited outer one is not mixed in.
  static const std::vector<RankSource> kSources = {
      {"OMPI_COMM_WORLD_RANK", {"OMPI_COMM_WORLD_SIZE"}},
      {"PMIX_RANK", {"OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}},
      {"PMI_RANK", {"PMI_SIZE"}},
  };
  for (const RankSource& source : kSources) {
    const char* raw = getenv(source.rank);
    if (raw == nullptr) continue;
    MpiRank who;
    who.rank_from = source.rank;
    const auto rank = ParseCount(raw);
    if (!rank) return Usage(fmt::format("import --mpi: {}=\"{}\" is not a rank number", source.rank, raw));
    who.rank = *rank;
    for (const char* name : source.sizes) {
      if (const auto size = ParseCount(getenv(name)); size && who.size_from.empty()) {
        who.size = *size;
        who.size_from = name;
      }
    }
    if (who.size_from.empty()) {
      return Usage(fmt::format("import --mpi: {} is set but no world size ({} unset or not a number)", source.rank,
                               fmt::join(source.sizes, ", ")));
    }
    if (who.size < 1 || who.rank >= who.size) {
      return Usage(fmt::format("import --mpi: rank {} ({}) is not below the world size {} ({})", who.rank,
                               who.rank_from, who.size, who.size_from));
    }
    who.job = JobFromEnv(getenv, who.job_from);
    return who;
  }
  return Usage(
      "import --mpi: no MPI rank variable is set (OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK): this process was "
      "not started by an MPI launcher");
}

Share ShareOf(std::size_t inputs, std::int64_t rank, std::int64_t size) {
  const auto n = static_cast<std::size_t>(size), r = static_cast<std::size_t>(rank);
  const std::size_t base = inputs / n, extra = inputs % n;
  Share share;
  share.begin = r * base + std::min(r, extra);
  share.end = share.begin + base + (r < extra ? 1 : 0);
  return share;
}

fs::path MpiPartialFolder(const fs::path& out_dir, const std::string& job) {
  std::string name = job.empty() ? "none" : job;
  for (char& c : name) {
    const bool safe =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  return out_dir / kPartialsName / ("job-" + name);
}

fs::path MpiPartialFile(const fs::path& folder, std::int64_t rank) {
  return folder / fmt::format("rank-{}.json", rank);
}

fs::path MpiFailureFile(const fs::path& folder, std::int64_t rank) {
  return folder / fmt::format("rank-{}.failed", rank);
}

Status CreateMpiPartialFolder(const fs::path& folder) {
  return CreateFoldersNoFollow(folder, fs::path(kPartialsName) / folder.filename());
}

Status WriteMpiFailure(const fs::path& folder, std::int64_t rank, const Error& error) {
  RETURN_IF_ERROR(CreateMpiPartialFolder(folder));
  return WriteFileAtomically(MpiFailureFile(folder, rank),
                             fmt::format("exit {}\n{}\n", static_cast<int>(error.kind), error.Render()));
}

namespace {

bool Exists(const fs::path& file) {
  std::error_code ec;
  return fs::exists(file, ec);
}

// The error rank `rank`'s failure file describes ("exit N" then the message).
Error RankFailed(const fs::path& file, std::int64_t rank, std::int64_t size) {
  auto text = ReadWholeFile(file);
  std::string body = text.ok() ? *text : "(its failure file could not be read: " + text.error().message + ")";
  int code = static_cast<int>(ExitStatus::kFailure);
  if (body.starts_with("exit ")) {
    const auto eol = body.find('\n');
    const std::string number = body.substr(5, eol == std::string::npos ? std::string::npos : eol - 5);
    if (const auto parsed = ParseCount(number.c_str()); parsed && *parsed > 0 && *parsed < 256) {
      code = static_cast<int>(*parsed);
    }
    body = eol == std::string::npos ? "" : body.substr(eol + 1);
  }
  while (!body.empty() && body.back() == '\n') body.pop_back();
  return MakeError(static_cast<ExitStatus>(code),
                   fmt::format("import --mpi: rank {} of {} failed: {}", rank, size, body))
      .WithNote("nothing was merged; fix what that rank says and run the job again");
}

std::string RankList(const std::vector<std::int64_t>& ranks) {
  constexpr std::size_t kShown = 32;
  std::string list = fmt::format("{}", fmt::join(ranks.begin(), ranks.begin() + std::min(ranks.size(), kShown), ", "));
  if (ranks.size() > kShown) list += fmt::format(" and {} more", ranks.size() - kShown);
  return list;
}

}  // namespace

Result<report::PartialSet> GatherMpiPartials(const fs::path& folder, std::int64_t size, const MpiWait& wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait.timeout;
  std::vector<bool> arrived(static_cast<std::size_t>(size), false);
  // Ranks below `merged` are read, merged and dropped: rank 0 holds the
  // merged partial and one rank's partial at a time, whatever the rank count.
  PartialMerger merger;
  std::int64_t merged = 0;
  auto poll = wait.poll_start;
  for (;;) {
    std::vector<std::int64_t> missing;
    for (std::int64_t r = 0; r < size; ++r) {
      if (arrived[r]) continue;
      if (Exists(MpiFailureFile(folder, r))) return RankFailed(MpiFailureFile(folder, r), r, size);
      arrived[r] = Exists(MpiPartialFile(folder, r));
      if (!arrived[r]) missing.push_back(r);
      if (arrived[r] && wait.on_arrival) wait.on_arrival(r);
    }
    for (; merged < size && arrived[merged]; ++merged) {
      auto read = ReadPartialFile(MpiPartialFile(folder, merged));
      if (!read.ok()) return std::move(read).error().WithContext(fmt::format("reading rank {}'s partial", merged));
      read->origin = fmt::format("rank {} ({})", merged, read->origin);
      RETURN_IF_ERROR(merger.Add(std::move(read).value()));
    }
    if (missing.empty()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      return MakeError(ExitStatus::kFailure,
                       fmt::format("import --mpi: rank(s) {} of {} delivered no partial within {} s (in {})",
                                   RankList(missing), size, wait.timeout.count() / 1000.0, folder.string()))
          .WithNote(
              "a rank that died or hangs, or an output folder the ranks do not share (it must be on a "
              "filesystem every rank sees); for longer imports raise --mpi-timeout SECONDS");
    }
    std::this_thread::sleep_for(poll);
    poll = std::min(poll * 2, wait.poll_max);
  }
  return merger.Finish();
}

void RemoveMpiPartials(const fs::path& folder) {
  std::error_code ec;
  fs::remove_all(folder, ec);
  fs::remove(folder.parent_path(), ec);  // only when empty
}

void RemoveMpiTempFiles(const fs::path& folder, std::int64_t rank) {
  // The atomic writer's temp names (src/core/atomic_file.cc): "<file>.tmp.<random>".
  const std::string partial = MpiPartialFile(folder, rank).filename().string() + ".tmp.";
  const std::string failure = MpiFailureFile(folder, rank).filename().string() + ".tmp.";
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (!fs::is_regular_file(it->symlink_status(type_ec)) || type_ec) continue;
    if (name.starts_with(partial) || name.starts_with(failure)) fs::remove(it->path(), type_ec);
  }
  fs::remove(folder, ec);                // only when empty
  fs::remove(folder.parent_path(), ec);  // likewise
}

}  // namespace llmpo::pipeline
