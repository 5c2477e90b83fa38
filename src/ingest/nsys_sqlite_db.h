// SQLite helpers shared by the files of the nsys SQLite importer
// (nsys_sqlite.cc, nsys_api_summary.cc). Not for use elsewhere.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "src/ingest/importer.h"

namespace llmpo::ingest::nsys_sqlite {

struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

// The error for a failed query: a damaged file gets the fix (export again).
Error SqlError(const ImportContext& ctx, sqlite3* db, std::string_view what);
Result<Stmt> Prepare(sqlite3* db, const std::string& sql, const ImportContext& ctx);
bool HasTable(sqlite3* db, const char* table);

// Rows handed to C++ as SQLite produces them, without a sqlite3_column_*
// call per column (each takes and leaves the connection's API guard): a
// query selects llmpo_row(?1, expr...) with ?1 bound to a RowHook
// (BindRowHook), and each row's values reach the hook's OnRow while
// sqlite3_step makes the row. The values live only for that call.
class RowHook {
 public:
  virtual ~RowHook() = default;
  virtual void OnRow(sqlite3_value** values, int count) = 0;
};
// Makes llmpo_row known to `db` (once per connection; direct use only, so a
// view or trigger in the file cannot call it).
Status AddRowHookFunction(sqlite3* db, const ImportContext& ctx);
void BindRowHook(sqlite3_stmt* stmt, RowHook* hook);

// One column call instead of two (type, then value): the value read from a
// connection only this thread uses (SQLITE_OPEN_NOMUTEX), so its type and
// integer may be read from the unprotected sqlite3_value.
inline std::optional<std::int64_t> Int(sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return sqlite3_value_int64(v);
}
inline std::optional<std::int64_t> Int(sqlite3_stmt* s, int col) { return Int(sqlite3_column_value(s, col)); }

inline std::string Text(sqlite3_stmt* s, int col) {
  const auto* text = sqlite3_column_text(s, col);
  return text ? reinterpret_cast<const char*>(text) : "";
}

// The API function's name as nsys' cuda_kern_exec_sum prints it: without
// the version suffix CUPTI appends ("cudaLaunchKernel_v7000").
inline std::string_view ApiNameView(std::string_view name) {
  if (name.size() >= 6 && name.substr(name.size() - 6, 2) == "_v") name.remove_suffix(6);
  return name;
}

__extension__ using Uint128 = unsigned __int128;  // a GCC/Clang extension: exact sums of squares

// One function's CUDA API calls (one nameId) while they are read.
struct CallGroup {
  std::int64_t calls = 0, total = 0, min = 0, max = 0;
  Uint128 sum_sq = 0;
  bool by_sql = false;  // summed by the GROUP BY query instead
};

// The calls of CUPTI_ACTIVITY_KIND_RUNTIME summed per nameId as rows are
// read, by whichever pass reads the table (nsys_api_summary.cc).
class ApiCallGroups {
 public:
  // A call's nameId, start and end (a row's column values).
  void Add(sqlite3_value* name, sqlite3_value* start, sqlite3_value* end);
  const std::map<std::int64_t, CallGroup>& groups() const { return groups_; }

 private:
  std::map<std::int64_t, CallGroup> groups_;
  CallGroup* last_ = nullptr;  // calls come in runs of one function
  std::int64_t last_id_ = 0;
};

// The CUDA API calls per function (api_call_sums.h), to the sink: from
// `read` when a pass over every call summed them already, else read here.
Status ImportApiSummary(sqlite3* db, ImportContext& ctx, const ApiCallGroups* read);

}  // namespace llmpo::ingest::nsys_sqlite
