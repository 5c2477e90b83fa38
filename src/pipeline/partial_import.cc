#include "src/pipeline/partial_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "src/analysis/kernel_category.h"
#include "src/pipeline/collectors.h"
#include "src/pipeline/input_dedupe.h"
#include "src/pipeline/outputs.h"
#include "src/pipeline/partial_merge.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using report::PartialSet;

namespace {

// Each input's finished region trees, copied before Finish() combines them.
std::vector<report::RegionInputPart> RegionParts(Collectors& collectors) {
  std::vector<report::RegionInputPart> parts;
  for (const analysis::SourceRegions& s : collectors.FinishedRegionInputs()) {
    const analysis::RegionBuilder& b = *s.builder;
    report::RegionInputPart part{b.source(), s.family, b.caps(), b.saw_nvtx(), b.launches_seen(),
                                 b.launches_outside(), b.folded(), b.launches_per_range(), {}};
    for (const auto& [scope, tree] : b.scopes()) part.scopes.push_back({scope, tree.caps, tree.regions()});
    parts.push_back(std::move(part));
  }
  return parts;
}

PartialSet ToPartial(Collectors& collectors, const std::string& job) {
  PartialSet p;
  p.job = job;
  p.regions = RegionParts(collectors);
  report::Collected c = collectors.Finish();
  p.sources = std::move(c.sources);
  p.kernels = std::move(c.kernels);
  p.runtime = std::move(c.runtime);
  p.gpu_busy = std::move(c.gpu_busy);
  p.gpu_breakdown = std::move(c.gpu_breakdown);
  p.timeline = std::move(c.timeline);
  p.unused_kernel_patterns = std::move(c.unused_kernel_patterns);
  p.diagnostics = std::move(c.diagnostics);
  p.region_diagnostics = std::move(c.region_diagnostics);
  p.launch_sequences = std::move(c.launch_sequences);
  p.phases = analysis::DigestPhaseKernels(std::move(c.phases));  // one entry per step, not per launch
  return p;
}

struct Slot {
  std::optional<PartialFile> part;
  std::vector<Error> failures;
};

// An archive member's bytes may wait in memory, to be parsed on another
// thread, up to this size as stored (a .json.gz member is still
// compressed). At most threads + 2 members are held at once: threads + 1
// handed over and not yet merged, and the one being read.
constexpr std::uint64_t kDeferMemberBytes = std::uint64_t{32} << 20;

// An archive's members, each reduced to a partial and merged in the
// archive's order: those read in place by the archive's thread, and those
// deferred (ArchiveMembers::defer), parsed by `threads` threads of their
// own, and the archive's notes. The archive's thread waits before a member
// more than threads + 1 ahead of the merge. From a member refused (a gzip
// bomb) on, nothing more is merged, as a read in turn would have stopped
// there.
class MemberFold {
 public:
  using Outcome = ingest::MemberInputs::Outcome;
  using Read = std::function<Outcome(Collectors&)>;

  MemberFold(const ImportRequest& request, const std::string& job, unsigned threads)
      : request_(request), job_(job), window_(std::size_t{threads} + 1) {
    for (unsigned t = 0; t < threads; ++t) workers_.emplace_back([this] { Work(); });
  }
  ~MemberFold() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : workers_) t.join();
  }
  MemberFold(const MemberFold&) = delete;
  MemberFold& operator=(const MemberFold&) = delete;

  // The place in the archive's order of the next member.
  std::size_t Reserve() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return next_ < merged_ + window_; });
    return next_++;
  }
  void Done(std::size_t i, std::optional<PartialFile> part, Outcome outcome, std::string note = {}) {
    std::lock_guard lock(mutex_);
    done_.emplace(i, Finished{std::move(part), std::move(outcome), std::move(note)});
    for (auto it = done_.begin(); it != done_.end() && it->first == merged_; it = done_.erase(it), ++merged_) {
      if (settled_.refusal) continue;  // after a refused member: dropped
      if (it->second.part) {
        (void)merger_.Add(std::move(*it->second.part));  // Finish says a refusal
        ++members_;
      }
      if (it->second.outcome.read) ++settled_.read;
      if (!it->second.note.empty()) settled_.notes.push_back(std::move(it->second.note));
      settled_.refusal = std::move(it->second.outcome.refusal);
      if (settled_.refusal) refused_ = true;
    }
    changed_.notify_all();
  }
  void Note(const std::string& note) { Done(Reserve(), std::nullopt, {}, note); }
  bool Refused() {
    std::lock_guard lock(mutex_);
    return refused_;
  }
  void Defer(Read read) {
    const std::size_t i = Reserve();
    std::lock_guard lock(mutex_);
    queue_.push_back({i, std::move(read)});
    changed_.notify_all();
  }
  // Waits for every member handed over; what the deferred ones gave.
  ingest::MemberInputs::Settled Settle() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return merged_ == next_; });
    ingest::MemberInputs::Settled out = std::move(settled_);
    settled_ = {};
    return out;
  }

  PartialMerger& merger() { return merger_; }
  std::size_t members() const { return members_; }

 private:
  struct Finished {
    std::optional<PartialFile> part;
    Outcome outcome;
    std::string note;
  };
  struct Task {
    std::size_t index;
    Read read;
  };

  void Work() {
    for (;;) {
      Task task;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      auto collectors = std::move(Collectors::Create(request_.regions, false)).value();  // checked by the caller
      Outcome outcome = task.read(*collectors);
      const std::string label = collectors->sources().back().path;
      Done(task.index, PartialFile{label, ToPartial(*collectors, job_)}, std::move(outcome));
    }
  }

  const ImportRequest& request_;
  const std::string& job_;
  const std::size_t window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Task> queue_;
  std::map<std::size_t, Finished> done_;
  std::size_t next_ = 0, merged_ = 0, members_ = 0;
  ingest::MemberInputs::Settled settled_;
  PartialMerger merger_;
  bool stopping_ = false, refused_ = false;
  std::vector<std::thread> workers_;  // last: started once the rest is built
};

// One input, read alone and reduced; its collectors are gone on return. An
// archive's traces are each reduced as they end, in collectors of their own,
// and merged in order: the archive then keeps what its rank files would.
// With `member_threads` > 1, an archive's small members are parsed by that
// many threads (MemberFold).
void CollectOne(const ImportRequest& request, const fs::path& file, const std::string& job, unsigned member_threads,
                Slot& slot) {
  ImportRequest one = request;
  one.inputs = {file};
  auto collectors = Collectors::Create(request.regions, false);
  if (!collectors.ok()) {
    slot.failures.push_back(collectors.error());
    return;
  }
  std::unique_ptr<Collectors> member;
  std::size_t member_index = 0;
  MemberFold fold(request, job, member_threads > 1 ? member_threads : 0);
  ArchiveMembers members;
  members.begin = [&]() -> Collectors& {
    member_index = fold.Reserve();
    member = std::move(Collectors::Create(request.regions, false)).value();
    return *member;
  };
  members.end = [&](Collectors& done) {
    const std::string label = done.sources().back().path;
    fold.Done(member_index, PartialFile{label, ToPartial(done, job)}, {});
    member.reset();
  };
  if (member_threads > 1) {
    members.defer_bytes = kDeferMemberBytes;
    members.defer = [&](MemberFold::Read read) { fold.Defer(std::move(read)); };
    members.settle = [&] { return fold.Settle(); };
    members.note = [&](const std::string& note) { fold.Note(note); };
    members.stopped = [&] { return fold.Refused(); };
  }
  ReadImportInputs(one, **collectors, slot.failures, &members);
  (void)fold.Settle();  // the importer settled already, unless it stopped early
  PartialSet own = ToPartial(**collectors, job);
  if (fold.members() == 0) {
    slot.part = PartialFile{file.string(), std::move(own)};
    return;
  }
  (void)fold.merger().Add({file.string(), std::move(own)});
  auto merged = fold.merger().Finish();
  if (merged.ok()) {
    slot.part = PartialFile{file.string(), std::move(merged).value()};
    return;
  }
  // The merge refused its members (two traces claiming one rank: a rank
  // profiled in several windows, as the profiler's trace handler writes
  // them): read again as one input, its traces added up, as an import of
  // the archive always did; the note says why.
  ImportRequest whole = one;
  whole.archives_whole = true;
  auto again = std::move(Collectors::Create(request.regions, false)).value();
  slot.failures.clear();
  ReadImportInputs(whole, *again, slot.failures);
  again->diagnostics().Note(
      fmt::format("{}: {}; the archive is read as one input, its traces added up, without "
                  "reducing them one at a time",
                  file.string(), merged.error().message));
  slot.part = PartialFile{file.string(), ToPartial(*again, job)};
}

}  // namespace

namespace {

// The pool's shared state: inputs are handed out in order, and each one's
// partial is merged as soon as those before it are, then dropped. A thread
// waits before taking an input more than `window` ahead of the merge, so at
// most that many partials wait at once whatever the number of inputs.
class OrderedFold {
 public:
  OrderedFold(std::size_t inputs, std::size_t window) : slots_(inputs), window_(window) {}

  // The next input to read, or nullopt when none is left.
  std::optional<std::size_t> Take() {
    std::unique_lock lock(mutex_);
    // The end is checked after the wait too: while this thread waited,
    // another may have taken the last input.
    ready_.wait(lock, [&] { return next_ >= slots_.size() || next_ < merged_ + window_; });
    if (next_ >= slots_.size()) return std::nullopt;
    return next_++;
  }

  void Done(std::size_t i, Slot slot) {
    std::lock_guard lock(mutex_);
    slots_[i] = std::move(slot);
    done_.insert(i);
    for (; done_.contains(merged_); ++merged_) {
      done_.erase(merged_);
      Slot& s = slots_[merged_];
      for (Error& e : s.failures) failures_.push_back(std::move(e));
      if (s.part) (void)merger_.Add(std::move(*s.part));  // Finish returns the first refusal
      s = Slot{};
    }
    ready_.notify_all();
  }

  PartialMerger& merger() { return merger_; }
  std::vector<Error>& failures() { return failures_; }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Slot> slots_;
  std::set<std::size_t> done_;
  std::size_t next_ = 0, merged_ = 0, window_;
  PartialMerger merger_;
  std::vector<Error> failures_;
};

}  // namespace

Result<PartialImport> CollectPartial(const ImportRequest& request, const std::string& job, unsigned threads) {
  {
    auto probe = Collectors::Create(request.regions, false);  // a bad filter, said once
    if (!probe.ok()) return std::move(probe).error();
  }
  model::Diagnostics dedupe;
  const std::vector<fs::path> inputs = UniqueInputs(request.inputs, dedupe);
  const unsigned n = std::clamp<unsigned>(threads, 1, std::max<std::size_t>(inputs.size(), 1));
  OrderedFold fold(inputs.size(), 2 * std::size_t{n});
  // Threads the inputs leave over read an archive's members (a lone tar of ranks).
  const unsigned member_threads = std::max(threads, 1u) / n;
  PartialSet head;  // what the dedupe said comes first, as in one import
  head.job = job;
  head.diagnostics = std::move(dedupe);
  (void)fold.merger().Add({"(inputs)", std::move(head)});
  const auto work = [&] {
    while (const auto i = fold.Take()) {
      Slot slot;
      CollectOne(request, inputs[*i], job, member_threads, slot);
      fold.Done(*i, std::move(slot));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  PartialImport out;
  out.inputs = inputs.size();
  out.failures = std::move(fold.failures());
  ASSIGN_OR_RETURN(out.set, fold.merger().Finish());
  out.set.merged_from.clear();  // made from inputs, not from partial files
  return out;
}

Result<std::vector<std::string>> WritePartialReports(PartialSet set, const ImportRequest& request) {
  RETURN_IF_ERROR(PrepareOutputFolder(request));
  ASSIGN_OR_RETURN(analysis::KernelCategorizer categorizer,
                   analysis::KernelCategorizer::Create(request.regions.categories));
  NoteMissingRanks(set);
  MergedCollection merged(std::move(set));
  const report::ReportSet reports = report::BuildReportSet(merged.Take(), ImportReportOptions(request, categorizer));
  return WriteOutputs(request.out_dir, reports);
}

}  // namespace llmpo::pipeline
