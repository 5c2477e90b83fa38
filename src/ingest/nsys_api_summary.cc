// The CUDA API calls of an nsys SQLite export summed per function
// (api_call_sums.h) in one pass over CUPTI_ACTIVITY_KIND_RUNTIME in table
// order, per nameId, instead of by an SQL GROUP BY: the GROUP BY sorts every
// call, which for millions of launch calls cost more than reading them.
//
// The sums are the GROUP BY's, bit for bit. Counts, totals, minima and maxima
// are integers. The sum of squared durations is a double in SQL, whose value
// depends on the order of the additions unless every partial sum is exact:
// a function whose squares sum to at most 2^53 takes the exact sum; the
// others (and calls with times that are not integers, or sums that overflow)
// are summed by the GROUP BY query itself, restricted to those functions.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "src/ingest/api_call_sums.h"
#include "src/ingest/nsys_sqlite_db.h"

namespace llmpo::ingest::nsys_sqlite {
namespace {

// One function's row as the GROUP BY query gives it.
struct FunctionSums {
  std::string name;
  std::int64_t calls = 0;
  double total = 0, min = 0, max = 0, sum_sq = 0;
};

constexpr Uint128 kExactSquares = static_cast<Uint128>(1) << 53;

// As the query's WHERE: calls without times, or ending before they start,
// are not counted.
void AddCall(CallGroup& g, sqlite3_value* start_value, sqlite3_value* end_value) {
  const int start_type = sqlite3_value_type(start_value), end_type = sqlite3_value_type(end_value);
  if (g.by_sql || start_type == SQLITE_NULL || end_type == SQLITE_NULL) return;
  if (start_type != SQLITE_INTEGER || end_type != SQLITE_INTEGER) {
    g.by_sql = true;  // SQL's comparison and arithmetic of other types
    return;
  }
  const std::int64_t start = sqlite3_value_int64(start_value), end = sqlite3_value_int64(end_value);
  if (end < start) return;
  std::int64_t d = 0, total = 0;
  if (__builtin_sub_overflow(end, start, &d) || __builtin_add_overflow(g.total, d, &total)) {
    g.by_sql = true;  // SQL's overflow rules (a REAL difference, an error for the sum)
    return;
  }
  g.min = g.calls == 0 ? d : std::min(g.min, d);
  g.max = g.calls == 0 ? d : std::max(g.max, d);
  ++g.calls;
  g.total = total;
  g.sum_sq += static_cast<Uint128>(d) * static_cast<Uint128>(d);
  if (g.sum_sq > kExactSquares) g.by_sql = true;
}

Result<ApiCallGroups> ReadCalls(sqlite3* db, const ImportContext& ctx) {
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db, "SELECT nameId, start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME", ctx));
  ApiCallGroups groups;
  sqlite3_stmt* s = stmt.get();
  int rc = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    groups.Add(sqlite3_column_value(s, 0), sqlite3_column_value(s, 1), sqlite3_column_value(s, 2));
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, "reading the CUDA API calls failed");
  return groups;
}

// The summed functions' names; a nameId that StringIds lacks is left out, as the join leaves it out.
Status NameSummed(sqlite3* db, const ImportContext& ctx, const std::map<std::int64_t, CallGroup>& groups,
                  std::map<std::int64_t, FunctionSums>& out) {
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db, "SELECT value FROM StringIds WHERE id = ?", ctx));
  sqlite3_stmt* s = stmt.get();
  for (const auto& [id, g] : groups) {
    if (g.by_sql || g.calls == 0) continue;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, id);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) continue;
    if (rc != SQLITE_ROW) return SqlError(ctx, db, "reading the CUDA API calls failed");
    out[id] = FunctionSums{Text(s, 0), g.calls, static_cast<double>(g.total), static_cast<double>(g.min),
                           static_cast<double>(g.max), static_cast<double>(g.sum_sq)};
  }
  return OkStatus();
}

// The GROUP BY query for the functions not summed here (`+` keeps the plan
// a scan of the calls in table order, as without the IN list).
Status SumBySql(sqlite3* db, const ImportContext& ctx, const std::map<std::int64_t, CallGroup>& groups,
                std::map<std::int64_t, FunctionSums>& out) {
  std::vector<std::int64_t> ids;
  for (const auto& [id, g] : groups) {
    if (g.by_sql) ids.push_back(id);
  }
  if (ids.empty()) return OkStatus();
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db,
                                      fmt::format("SELECT s.value, COUNT(*), SUM(r.end - r.start), "
                                                  "MIN(r.end - r.start), MAX(r.end - r.start), "
                                                  "SUM(CAST(r.end - r.start AS REAL) * (r.end - r.start)), r.nameId "
                                                  "FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
                                                  "r.nameId WHERE r.end >= r.start AND +r.nameId IN ({}) "
                                                  "GROUP BY r.nameId",
                                                  fmt::join(ids, ",")),
                                      ctx));
  sqlite3_stmt* s = stmt.get();
  int rc = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    out[sqlite3_column_int64(s, 6)] =
        FunctionSums{Text(s, 0), Int(s, 1).value_or(0), static_cast<double>(Int(s, 2).value_or(0)),
                     static_cast<double>(Int(s, 3).value_or(0)), static_cast<double>(Int(s, 4).value_or(0)),
                     sqlite3_column_double(s, 5)};
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, "reading the CUDA API calls failed");
  return OkStatus();
}

}  // namespace

void ApiCallGroups::Add(sqlite3_value* name, sqlite3_value* start, sqlite3_value* end) {
  if (sqlite3_value_type(name) != SQLITE_INTEGER) return;  // joins no StringIds id
  const std::int64_t id = sqlite3_value_int64(name);
  if (last_ == nullptr || id != last_id_) last_ = &groups_[id], last_id_ = id;
  AddCall(*last_, start, end);
}

// By nameId, as the GROUP BY gave them; the "_vNNNN" version suffix dropped
// as the launch calls drop it (two versions of one function add up).
Status ImportApiSummary(sqlite3* db, ImportContext& ctx, const ApiCallGroups* read) {
  if (!HasTable(db, "CUPTI_ACTIVITY_KIND_RUNTIME")) return OkStatus();
  std::optional<ApiCallGroups> own;
  if (read == nullptr) {
    ASSIGN_OR_RETURN(own, ReadCalls(db, ctx));
    read = &*own;
  }
  const auto& groups = read->groups();
  std::map<std::int64_t, FunctionSums> by_id;
  RETURN_IF_ERROR(NameSummed(db, ctx, groups, by_id));
  RETURN_IF_ERROR(SumBySql(db, ctx, groups, by_id));
  ApiCallSums sums;
  for (const auto& [id, f] : by_id) sums.Add(std::string(ApiNameView(f.name)), f.calls, f.total, f.min, f.max, f.sum_sq);
  sums.Emit(ctx);
  return OkStatus();
}

}  // namespace llmpo::ingest::nsys_sqlite
