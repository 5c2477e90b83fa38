// Data-quality bookkeeping: importers count what they read and what they
// skipped, by reason, and keep the first example of each, so a report can
// end with a "Data quality" section instead of failing on a bad row.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/diagnostic_codes.h"

namespace llmpo::model {


// A diagnostic quotes at most kMaxQuotedBytes of one input field, and keeps
// at most kMaxExampleBytes of example, so a damaged 300 MB field is never
// copied whole into a report.
inline constexpr std::size_t kMaxQuotedBytes = 200;
inline constexpr std::size_t kMaxExampleBytes = 1024;

// `text` when it fits in max_bytes, else its start, cut on a UTF-8
// character boundary, and "…".
std::string Excerpt(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);


struct DiagnosticEntry {
  Severity severity = Severity::kInfo;
  std::uint64_t count = 0;
  std::string first_example;  // "file:line: detail", at most kMaxExampleBytes and "…"
};

class Diagnostics {
 public:
  void CountRow() { ++rows_read_; }
  // One case of a declared check (diagnostic_codes.def), with its severity.
  DiagnosticEntry& Add(Diag code, std::string example);
  // For checks that can fire on every row: the example is only built the
  // first time the code is seen. The entry returned stays valid for the life
  // of this object, so a hot loop may count into it directly.
  template <typename MakeExample>
  DiagnosticEntry& AddLazy(Diag code, MakeExample&& make_example) {
    if (auto it = entries_.find(Describe(code).code); it != entries_.end()) {
      ++it->second.count;
      return it->second;
    }
    return Add(code, make_example());
  }
  void Note(std::string note);
  void Merge(const Diagnostics& other);
  // A diagnostics object as it was written out (report_set.json): counts,
  // entries and notes as given, no severity looked up again.
  static Diagnostics Restore(std::uint64_t rows_read, std::map<std::string, DiagnosticEntry, std::less<>> entries,
                             std::vector<std::string> notes);

  std::uint64_t rows_read() const { return rows_read_; }
  std::uint64_t rows_skipped() const;  // data-loss entries
  const std::map<std::string, DiagnosticEntry, std::less<>>& entries() const { return entries_; }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::uint64_t rows_read_ = 0;
  std::map<std::string, DiagnosticEntry, std::less<>> entries_;
  std::vector<std::string> notes_;
};

}  // namespace llmpo::model
