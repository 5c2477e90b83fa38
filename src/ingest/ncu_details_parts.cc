#include "src/ingest/ncu_details_parts.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "src/core/usable_cpus.h"
#include "src/ingest/ncu_details_importer.h"

namespace llmpo::ingest::ncu {
namespace {

thread_local std::optional<PartsPolicy> policy_for_testing;
thread_local PartsOutcome last_outcome;

// pread until `length` bytes or the end of the file; the bytes read.
std::size_t ReadAt(int fd, char* into, std::size_t length, std::uint64_t offset) {
  std::size_t got = 0;
  while (got < length) {
    const ssize_t n = ::pread(fd, into + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "reading the ncu CSV file");
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

// The ID a row starting at text[at] begins with ("123", or 123 unquoted,
// followed by a comma); empty when the line does not start that way or is
// not whole in the text.
std::string_view IdAt(std::string_view text, std::size_t at) {
  const bool quoted = at < text.size() && text[at] == '"';
  std::size_t i = at + (quoted ? 1 : 0);
  const std::size_t digits = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  if (i == digits) return {};
  const std::string_view id = text.substr(digits, i - digits);
  if (quoted) {
    if (i >= text.size() || text[i] != '"') return {};
    ++i;
  }
  if (i >= text.size() || text[i] != ',') return {};
  return id;
}

// Where a part was left: the record cut by its end (not the file's),
// which the reader of the part did not read.
struct Resume {
  std::uint64_t offset, line;
};

// An importer and the diagnostics it writes, its own until merged.
struct PartState {
  PartState(const std::vector<std::string>& header, const ImportContext& outer, LaunchOutput& output)
      : ctx{outer.source, outer.sink, diagnostics}, importer(header, ctx, output) {}
  model::Diagnostics diagnostics;
  ImportContext ctx;
  DetailsImporter importer;
};

// The second thread's launches of one part, kept in reused records.
class BufferOutput final : public LaunchOutput {
 public:
  void Take(model::LaunchRecord& launch) override {
    if (count_ == launches_.size()) launches_.emplace_back();
    launches_[count_++] = launch;  // copy-assigned: the slot's strings and vectors keep their buffers
  }
  void Clear() { count_ = 0; }
  std::span<model::LaunchRecord> launches() { return {launches_.data(), count_}; }

 private:
  std::vector<model::LaunchRecord> launches_;
  std::size_t count_ = 0;
};

// One part as the second thread read it. Its lines are numbered from 1 at
// the part's start: the second thread does not know how many come before
// (counting them would read every byte twice), so its diagnostics are kept
// only where an earlier part had the same ones, whose first examples win.
struct Part {
  std::unique_ptr<PartState> state;  // started fresh at the part's start
  BufferOutput buffer;
  std::uint64_t end_line = 0;  // the line at the part's end, when read to it
  std::optional<Resume> resume;
};

constexpr std::uint64_t kPartFirstLine = 1;

// Reads [begin, end) of the file into `importer`, the first line being
// `line`. A record that the end of the part cuts is left unread, and where
// it starts returned; otherwise `end_line` gets the line at `end`.
std::optional<Resume> ReadRange(DetailsImporter& importer, const DetailsParts& parts, std::uint64_t begin,
                                std::uint64_t end, std::uint64_t line, std::uint64_t& end_line) {
  auto reader = CsvReader::MapRange(parts.fd, begin, end, line);
  if (!reader) throw std::system_error(errno, std::generic_category(), "duplicating the ncu CSV file's descriptor");
  reader->ReuseRepeatedPrefix(importer.FirstMetricColumn());
  importer.SetReader(*reader);
  const bool to_file_end = end >= parts.file_size;
  std::vector<std::string_view> fields;
  while (reader->Next(fields)) {
    // Only the end of the file ends a record inside quotes: here the cut did.
    if (!to_file_end && reader->last_record_truncated()) return Resume{reader->record_offset(), reader->record_line()};
    importer.Row(fields);
  }
  end_line = reader->mapped_position()->line;
  return std::nullopt;
}

// Whether `fresh`, which read the part after `before`'s from a fresh start,
// is in the state `before` would be in had it read that part itself: its
// first result started where `before` would have started one (another ID)
// and was not taken for rows of an earlier result. The rows before it change
// no state in either (tool output, rows without an ID).
bool CanHandOver(const DetailsImporter& before, const DetailsImporter& fresh) {
  if (!fresh.started()) return false;
  if (fresh.first_result_id() == before.pending_result_id()) return false;
  return !(before.any_result() && fresh.first_result_number() <= before.max_id());
}

// Whether a diagnostic of `part` is of a kind neither `before` nor `earlier`
// has: its first example, with a line number counted from the part's start,
// would then be the one reported.
bool HasNewKind(const model::Diagnostics& part, const model::Diagnostics& before, const model::Diagnostics& earlier) {
  for (const auto& [code, entry] : part.entries()) {
    if (entry.count == 0) continue;
    const auto seen = [&](const model::Diagnostics& d) {
      const auto it = d.entries().find(code);
      return it != d.entries().end() && it->second.count > 0;
    };
    if (!seen(before) && !seen(earlier)) return true;
  }
  return false;
}

// Which parts the second thread reads: every other one, never the first.
// (Three of every five, leaving this thread more time for the sink, measured
// no faster.)
bool SecondReads(std::size_t part) { return part % 2 == 1; }

// The second thread: reads the parts SecondReads gives it in order, each into a Part of a
// small pool.
class SecondReader {
 public:
  SecondReader(const DetailsParts& parts, const std::vector<std::string>& header, const ImportContext& ctx)
      : parts_(parts), header_(header), ctx_(ctx) {
    for (int i = 0; i < 3; ++i) free_.push_back(std::make_unique<Part>());
    thread_ = std::thread([this] { RunOrStop(); });
  }
  ~SecondReader() { Stop(); }
  SecondReader(const SecondReader&) = delete;
  SecondReader& operator=(const SecondReader&) = delete;

  // The next part in order; an error of the second thread is thrown here.
  std::unique_ptr<Part> Next() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !ready_.empty() || done_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      throw std::logic_error("ncu details parts: the second reader ended early");
    }
    auto part = std::move(ready_.front());
    ready_.pop_front();
    return part;
  }

  void Recycle(std::unique_ptr<Part> part) {
    {
      std::lock_guard lock(mutex_);
      free_.push_back(std::move(part));
    }
    changed_.notify_all();
  }

  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void RunOrStop() {
    try {
      Run();
    } catch (...) {  // nothing may leave a thread's function
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
  }

  void Run() {
    const auto& b = parts_.bounds;
    for (std::size_t s = 1; s + 1 < b.size(); ++s) {
      if (!SecondReads(s)) continue;
      std::unique_ptr<Part> part = TakeFree();
      if (!part) return;
      part->buffer.Clear();
      part->state = std::make_unique<PartState>(header_, ctx_, part->buffer);
      part->resume = ReadRange(part->state->importer, parts_, b[s], b[s + 1], kPartFirstLine, part->end_line);
      const bool resumed = part->resume.has_value();
      {
        std::lock_guard lock(mutex_);
        ready_.push_back(std::move(part));
      }
      changed_.notify_all();
      if (resumed) return;  // the rest is read on one thread
    }
  }

  std::unique_ptr<Part> TakeFree() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return stopping_ || !free_.empty(); });
    if (stopping_) return nullptr;
    auto part = std::move(free_.back());
    free_.pop_back();
    return part;
  }

  const DetailsParts& parts_;
  const std::vector<std::string>& header_;
  const ImportContext& ctx_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Part>> free_;
  std::deque<std::unique_ptr<Part>> ready_;
  bool stopping_ = false, done_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the rest is built
};

// The first cut after `text`'s first line break, or nullopt.
std::optional<std::size_t> FirstCut(std::string_view text) {
  std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return std::nullopt;
  std::string_view before = IdAt(text, newline + 1);
  while (true) {
    newline = text.find('\n', newline + 1);
    if (newline == std::string_view::npos) return std::nullopt;
    const std::string_view id = IdAt(text, newline + 1);
    if (!id.empty() && !before.empty() && id != before) return newline + 1;
    if (!id.empty()) before = id;
  }
}

}  // namespace

PartsPolicy DefaultPartsPolicy() {
  if (const char* env = std::getenv("LLMPO_NCU_PARTS"); env != nullptr && *env != '\0') {
    // A number of bytes: parts of that size from any size of file, on any
    // machine (tests and measurements); 0, or anything else, turns parts off.
    std::uint64_t bytes = 0;
    const std::string_view text(env);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    if (ec != std::errc() || end != text.data() + text.size() || bytes == 0) return {};
    return {1, bytes};
  }
  if (UsableCpus() < 2) return {};
  // 8 MiB parts were no faster on the 1 GB benchmark and held 22 MiB more.
  return {std::uint64_t{64} << 20, std::uint64_t{4} << 20};
}

void SetPartsPolicyForTesting(std::optional<PartsPolicy> policy) { policy_for_testing = policy; }

PartsOutcome LastPartsOutcomeForTesting() { return last_outcome; }

// A result usually starts within a few dozen lines: 16 KiB is read first,
// then four times as much until 256 KiB.
std::optional<std::uint64_t> FindResultStart(int fd, std::uint64_t from, std::uint64_t end) {
  constexpr std::size_t kFirstLook = 16 << 10, kMaxLook = 256 << 10;
  if (from >= end) return std::nullopt;
  std::string buffer;
  for (std::size_t look = kFirstLook; look <= kMaxLook; look *= 4) {
    buffer.resize(static_cast<std::size_t>(std::min<std::uint64_t>(look, end - from)));
    const std::size_t got = ReadAt(fd, buffer.data(), buffer.size(), from);
    if (const auto cut = FirstCut(std::string_view(buffer.data(), got))) return from + *cut;
    if (got < look) break;  // the whole rest of the file was looked at
  }
  return std::nullopt;
}

std::optional<DetailsParts> PlanDetailsParts(const CsvReader& reader, const ImportContext& ctx) {
  last_outcome = {};
  if (ctx.read_ahead) return std::nullopt;
  const PartsPolicy policy = policy_for_testing ? *policy_for_testing : DefaultPartsPolicy();
  if (policy.min_bytes == 0 || policy.part_bytes == 0) return std::nullopt;
  const auto at = reader.mapped_position();
  if (!at || at->offset >= at->file_size || at->file_size - at->offset < policy.min_bytes) return std::nullopt;
  DetailsParts parts{at->fd, at->file_size, at->line, {at->offset}};
  for (std::uint64_t nominal = at->offset + policy.part_bytes; nominal < at->file_size; nominal += policy.part_bytes) {
    if (nominal <= parts.bounds.back()) continue;
    std::optional<std::uint64_t> cut;
    try {
      cut = FindResultStart(at->fd, nominal, at->file_size);
    } catch (const std::system_error&) {
      return std::nullopt;  // a read error: one reader meets it and says so
    }
    if (cut && *cut > parts.bounds.back() && *cut < at->file_size) parts.bounds.push_back(*cut);
  }
  parts.bounds.push_back(at->file_size);
  if (parts.bounds.size() < 3) return std::nullopt;
  return parts;
}

Status ImportDetailsInParts(const DetailsParts& parts, const std::vector<std::string>& header, ImportContext& ctx) {
  const auto& b = parts.bounds;
  const std::size_t count = b.size() - 1;
  NameKeys keys;
  SinkOutput to_sink(keys, ctx.sink);
  auto current = std::make_unique<PartState>(header, ctx, to_sink);
  std::optional<SecondReader> started;
  try {
    started.emplace(parts, header, ctx);
  } catch (const std::system_error&) {  // no second thread: this one reads it all
    std::uint64_t end_line = 0;
    ReadRange(current->importer, parts, b[0], parts.file_size, parts.first_line, end_line);
    current->importer.Finish();
    ctx.diagnostics.Merge(current->diagnostics);
    return OkStatus();
  }
  SecondReader& second = *started;
  std::uint64_t line = parts.first_line;  // at the end of what `current` read
  std::optional<Resume> resume;
  PartsOutcome outcome{count};
  for (std::size_t s = 0; s < count && !resume; ++s) {
    if (!SecondReads(s)) {
      resume = ReadRange(current->importer, parts, b[s], b[s + 1], line, line);
      outcome.resumed_inside_record = resume.has_value();
      continue;
    }
    std::unique_ptr<Part> part = second.Next();
    PartState& read = *part->state;
    if (!CanHandOver(current->importer, read.importer)) {
      resume = Resume{b[s], line};
    } else if (HasNewKind(read.diagnostics, current->diagnostics, ctx.diagnostics)) {
      // Its first example needs the true line: this thread reads the part again.
      resume = ReadRange(current->importer, parts, b[s], b[s + 1], line, line);
      outcome.resumed_inside_record = resume.has_value();
      ++outcome.read_again;
    } else {
      current->importer.Finish();
      ctx.diagnostics.Merge(current->diagnostics);
      for (model::LaunchRecord& launch : part->buffer.launches()) to_sink.Take(launch);
      current = std::move(part->state);
      current->importer.SetOutput(to_sink);
      ++outcome.handed_over;
      if (part->resume) {
        resume = Resume{part->resume->offset, line + (part->resume->line - kPartFirstLine)};
        outcome.resumed_inside_record = true;
      } else {
        line += part->end_line - kPartFirstLine;
      }
    }
    second.Recycle(std::move(part));
  }
  second.Stop();
  outcome.one_thread_from_cut = resume.has_value();
  last_outcome = outcome;
  if (resume) ReadRange(current->importer, parts, resume->offset, parts.file_size, resume->line, line);
  current->importer.Finish();
  ctx.diagnostics.Merge(current->diagnostics);
  return OkStatus();
}

}  // namespace llmpo::ingest::ncu
