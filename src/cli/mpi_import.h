// import --mpi: this process is one rank of an MPI launcher's job; it imports
// its share of the inputs, and rank 0 merges every rank's partial into the
// reports (src/pipeline/mpi_share.h, docs/multirank.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "src/pipeline/import_job.h"

namespace llmpo::cli {

struct MpiImportOptions {
  std::string job;          // --job: names the partials' folder and job (default: the launcher's job id)
  unsigned threads = 1;     // -j, per rank
  double timeout_s = 3600;  // --mpi-timeout: how long rank 0 waits for the others
  // Told this rank's partials folder and rank before anything is written
  // there (so that a stop can remove what this rank leaves half-written).
  std::function<void(const std::filesystem::path& folder, std::int64_t rank)> on_rank_known;
};

// `request` holds every input and the output folder; returns the exit code.
int RunMpiImport(const pipeline::ImportRequest& request, const MpiImportOptions& options);

}  // namespace llmpo::cli
