// Ctrl-C or SIGTERM during an import: the import stops at once, removes
// what it had made in the output folder (staged reports, temp files, the
// UTF-8 copy of an input, its lock) and exits 130 (docs/exit-codes.md). The
// folder keeps the previous import's reports, or holds all of the new ones
// when they were already in place: putting them in place (a few renames) is
// a commit section that a stop waits for.
#pragma once

#include <functional>

namespace llmpo::pipeline {

// Held while an import's outputs are put in place; a stop waits for it to end.
class CommitSection {
 public:
  CommitSection();
  ~CommitSection();
  CommitSection(const CommitSection&) = delete;
  CommitSection& operator=(const CommitSection&) = delete;
  // Every output is in place (OutputsCommitted() from now on).
  void Done();
};

// Whether an import's outputs were all put in place in this process.
bool OutputsCommitted();

class ImportStop {
 public:
  // While alive, SIGINT and SIGTERM run `clean_up` (given the signal) on a
  // thread of their own, outside any commit section and after every name
  // the writers make is refused (src/core/name_gate.h), then exit 130.
  // The destructor runs `at_end` (releasing the folder's lock) where no stop
  // can run beside it; a signal after that exits 130 at once.
  ImportStop(std::function<void(int signal)> clean_up, std::function<void()> at_end);
  ~ImportStop();
  // Runs `change` (to what `clean_up` reads, such as the lock once taken)
  // where no stop can run beside it.
  void Guarded(const std::function<void()>& change) const;
  ImportStop(const ImportStop&) = delete;
  ImportStop& operator=(const ImportStop&) = delete;

 private:
  std::function<void()> at_end_;
};
}  // namespace llmpo::pipeline
