#include "src/model/diagnostics.h"

#include <utility>

#include "src/core/utf8.h"
#include "src/model/diagnostic_codes.h"
#include "src/model/source.h"

namespace llmpo::model {

std::string_view ToString(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kDataLoss:
      return "data_loss";
  }
  return "unknown";
}

std::string Excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back off the continuation bytes (10xxxxxx) of a character cut in two.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "\u2026";
}

DiagnosticEntry& Diagnostics::Add(Diag code, std::string example) {
  const DiagnosticCode& declared = Describe(code);
  auto it = entries_.find(declared.code);
  if (it == entries_.end()) it = entries_.emplace(std::string(declared.code), DiagnosticEntry{}).first;
  auto& entry = it->second;
  if (entry.count == 0) {
    entry.severity = declared.severity;
    entry.first_example = example.size() > kMaxExampleBytes ? Excerpt(example, kMaxExampleBytes) : std::move(example);
    ReplaceInvalidUtf8(entry.first_example);  // an input's bytes quoted in it: reports hold UTF-8 only
  }
  ++entry.count;
  return entry;
}

void Diagnostics::Note(std::string note) {
  ReplaceInvalidUtf8(note);  // an input's bytes quoted in it: reports hold UTF-8 only
  notes_.push_back(std::move(note));
}

void Diagnostics::Merge(const Diagnostics& other) {
  rows_read_ += other.rows_read_;
  for (const auto& [code, e] : other.entries_) {
    auto& mine = entries_.try_emplace(code).first->second;
    if (mine.count == 0) {
      mine = e;
    } else {
      mine.count += e.count;
    }
  }
  notes_.insert(notes_.end(), other.notes_.begin(), other.notes_.end());
}

Diagnostics Diagnostics::Restore(std::uint64_t rows_read, std::map<std::string, DiagnosticEntry, std::less<>> entries,
                                 std::vector<std::string> notes) {
  Diagnostics d;
  d.rows_read_ = rows_read;
  d.entries_ = std::move(entries);
  d.notes_ = std::move(notes);
  return d;
}

std::uint64_t Diagnostics::rows_skipped() const {
  std::uint64_t n = 0;
  for (const auto& [code, e] : entries_) {
    if (e.severity == Severity::kDataLoss) n += e.count;
  }
  return n;
}

std::string_view ToString(SourceFamily f) {
  switch (f) {
    case SourceFamily::kTimeline:
      return "timeline";
    case SourceFamily::kNcu:
      return "ncu";
    case SourceFamily::kSummary:
      return "nsys stats summary";
  }
  return "";
}

}  // namespace llmpo::model
