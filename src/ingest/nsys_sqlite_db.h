// SQLite helpers shared by the files of the nsys SQLite importer
// (nsys_sqlite.cc, nsys_api_summary.cc). Not for use elsewhere.
#pragma once

#include <sqlite3.h>

#include <cstdint>
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

inline std::optional<std::int64_t> Int(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(s, col);
}

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

// The CUDA API calls per function (api_call_sums.h), to the sink.
Status ImportApiSummary(sqlite3* db, ImportContext& ctx);

}  // namespace llmpo::ingest::nsys_sqlite
