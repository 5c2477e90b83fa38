// `nsys export --type sqlite`: kernels from CUPTI_ACTIVITY_KIND_KERNEL with
// names from StringIds, NVTX ranges from NVTX_EVENTS (text inline or by
// textId; domain names from the DomainCreate events). Both the ~2020 and the
// 2023+ schemas share these columns; tables are absent when nsys recorded
// nothing of that kind, which is not an error.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "src/core/assign_if_changed.h"
#include "src/ingest/importer.h"
#include "src/ingest/nsys_row_spill.h"
#include "src/ingest/nsys_sqlite_db.h"
#include "src/ingest/range_sweep.h"

namespace llmpo::ingest {
namespace nsys_sqlite {
namespace {

// SQLite's codes for a file that is not a whole database: cut short (a copy
// or an export that stopped), overwritten, or not SQLite past its header.
bool IsDamaged(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_IOERR;
}

}  // namespace

Error SqlError(const ImportContext& ctx, sqlite3* db, std::string_view what) {
  if (db != nullptr && IsDamaged(sqlite3_extended_errcode(db))) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: the SQLite file is damaged or truncated ({}: {})", ctx.source,
                                                     what, sqlite3_errmsg(db)))
        .WithNote(
            "export it again: nsys export --type sqlite --force-overwrite true REPORT.nsys-rep (and copy the "
            "whole file)");
  }
  return MakeError(ExitStatus::kInput, fmt::format("{}: {}: {}", ctx.source, what, sqlite3_errmsg(db)));
}

Result<Stmt> Prepare(sqlite3* db, const std::string& sql, const ImportContext& ctx) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    return SqlError(ctx, db, "cannot query the export");
  }
  return Stmt(raw);
}

namespace {

constexpr const char* kRowHookType = "llmpo.RowHook";

void CallRowHook(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* hook = argc > 0 ? static_cast<RowHook*>(sqlite3_value_pointer(argv[0], kRowHookType)) : nullptr;
  if (hook == nullptr) {
    sqlite3_result_error(context, "llmpo_row: no row hook bound", -1);
    return;
  }
  hook->OnRow(argv + 1, argc - 1);
  sqlite3_result_null(context);
}

}  // namespace

Status AddRowHookFunction(sqlite3* db, const ImportContext& ctx) {
  if (sqlite3_create_function_v2(db, "llmpo_row", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, nullptr, &CallRowHook,
                                 nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqlError(ctx, db, "cannot add the row function");
  }
  return OkStatus();
}

void BindRowHook(sqlite3_stmt* stmt, RowHook* hook) { sqlite3_bind_pointer(stmt, 1, hook, kRowHookType, nullptr); }

bool HasTable(sqlite3* db, const char* table) {
  sqlite3_stmt* raw = nullptr;
  sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &raw, nullptr);
  Stmt stmt(raw);
  sqlite3_bind_text(raw, 1, table, -1, SQLITE_STATIC);
  return sqlite3_step(raw) == SQLITE_ROW;
}

}  // namespace nsys_sqlite

namespace {

using nsys_sqlite::AddRowHookFunction;
using nsys_sqlite::ApiCallGroups;
using nsys_sqlite::ApiNameView;
using nsys_sqlite::BindRowHook;
using nsys_sqlite::HasTable;
using nsys_sqlite::Int;
using nsys_sqlite::Prepare;
using nsys_sqlite::RowHook;
using nsys_sqlite::RowSpill;
using nsys_sqlite::SqlError;
using nsys_sqlite::Stmt;
using nsys_sqlite::Text;

constexpr int kPushPopRange = 59;
constexpr int kStartEndRange = 60;
constexpr int kDomainCreate = 75;

// The export's NVTX ranges: their domains by id, and whether the table
// already holds them in the orders the reads below want (nsys writes ranges
// as they end, or by start; a sort of every range is then skipped).
struct NvtxTable {
  std::map<std::int64_t, std::string> domains;
  bool by_start = false;         // ranges by strictly increasing start, none without one
  bool by_thread_start = false;  // ranges with start, end and thread by (thread, start)
  // nsys' times count from the capture's start; its Unix time in ns
  // (TARGET_INFO_SESSION_START_TIME.utcEpochNs), where the export has it.
  std::optional<std::int64_t> session_start_unix_ns;
};

// The capture's start in Unix ns: the first row's utcEpochNs, if the table
// and an integer value are there.
std::optional<std::int64_t> SessionStartUnixNs(sqlite3* db) {
  if (!nsys_sqlite::HasTable(db, "TARGET_INFO_SESSION_START_TIME")) return std::nullopt;
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", -1, &raw, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(raw);
    return std::nullopt;  // no such column: an export of another version
  }
  Stmt stmt(raw);
  if (sqlite3_step(raw) != SQLITE_ROW || sqlite3_column_type(raw, 0) != SQLITE_INTEGER) return std::nullopt;
  return sqlite3_column_int64(raw, 0);
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;


// Reads the schema once: SQLite reads the header and first page lazily, so a
// damaged or truncated file shows here, not as a missing table.
Status CheckReadable(sqlite3* db, const ImportContext& ctx) {
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db, "SELECT name FROM sqlite_master", ctx));
  int rc = 0;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, "cannot read the schema");
  return OkStatus();
}


// globalPid/globalTid pack the PID in bits 24..47.
model::ProcessId ProcessOf(std::optional<std::int64_t> global_pid, const std::map<std::int64_t, std::string>& names) {
  model::ProcessId process;
  if (!global_pid) return process;
  process.pid = (*global_pid >> 24) & 0xFFFFFF;
  if (auto it = names.find(*global_pid & ~std::int64_t{0xFFFFFF}); it != names.end()) process.name = it->second;
  return process;
}

std::map<std::int64_t, std::string> ProcessNames(sqlite3* db) {
  std::map<std::int64_t, std::string> names;
  if (!HasTable(db, "PROCESSES")) return names;
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT globalPid, name FROM PROCESSES", -1, &raw, nullptr) != SQLITE_OK) return names;
  Stmt stmt(raw);
  while (sqlite3_step(raw) == SQLITE_ROW) {
    if (auto gpid = Int(raw, 0)) names[*gpid] = Text(raw, 1);
  }
  return names;
}

// StringIds looked up by id and remembered: a trace has a few hundred
// kernel names over millions of rows, and two joins per row cost more than
// the rest of the row.
class StringIds {
 public:
  static Result<StringIds> Open(sqlite3* db, const ImportContext& ctx) {
    ASSIGN_OR_RETURN(Stmt stmt, Prepare(db, "SELECT value FROM StringIds WHERE id = ?", ctx));
    return StringIds(std::move(stmt));
  }
  // The string, or nullptr for a NULL id, an unknown id or a NULL value.
  const std::string* Find(std::optional<std::int64_t> id) {
    if (!id) return nullptr;
    // Ids are small and dense (0, 1, 2, ...): those already looked up are
    // found by index, without hashing.
    const bool small = *id >= 0 && *id < kDenseIds;
    if (small && static_cast<std::size_t>(*id) < dense_.size()) {
      if (const auto* known = dense_[static_cast<std::size_t>(*id)]) return *known ? &**known : nullptr;
    }
    auto it = memo_.find(*id);
    if (it == memo_.end()) {
      sqlite3_reset(stmt_.get());
      sqlite3_bind_int64(stmt_.get(), 1, *id);
      std::optional<std::string> value;
      if (sqlite3_step(stmt_.get()) == SQLITE_ROW && sqlite3_column_type(stmt_.get(), 0) != SQLITE_NULL) {
        value = Text(stmt_.get(), 0);
      }
      it = memo_.emplace(*id, std::move(value)).first;
    }
    if (small) {
      const auto index = static_cast<std::size_t>(*id);
      if (index >= dense_.size()) dense_.resize(index + 1, nullptr);
      dense_[index] = &it->second;  // map nodes stay put
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  static constexpr std::int64_t kDenseIds = std::int64_t{1} << 20;
  explicit StringIds(Stmt stmt) : stmt_(std::move(stmt)) {}
  Stmt stmt_;
  std::unordered_map<std::int64_t, std::optional<std::string>> memo_;
  std::vector<const std::optional<std::string>*> dense_;  // by id: memo_'s entries, null where not looked up
};

// The NVTX ranges of every thread read in (thread, start) order, alongside
// GPU operations read in (launching thread, call time) order: only the
// ranges open at the current launch are held, so memory does not grow with
// the number of ranges. Attributes as RangeSweep does (nsys' projection
// rule: the ranges open on the launching thread when the call started).
class RangeCursor {
 public:
  static Result<RangeCursor> Open(sqlite3* db, const ImportContext& ctx, const NvtxTable& nvtx) {
    ASSIGN_OR_RETURN(Stmt stmt,
                     Prepare(db,
                             fmt::format("SELECT n.start, n.end, n.eventType, COALESCE(n.text, t.value), "
                                         "n.globalTid, n.domainId, n.rowid FROM NVTX_EVENTS n NOT INDEXED "
                                         "LEFT JOIN StringIds t ON t.id = n.textId "
                                         "WHERE n.eventType IN ({}, {}) AND n.start IS NOT NULL AND "
                                         "n.end IS NOT NULL AND n.globalTid IS NOT NULL "
                                         "{}",
                                         kPushPopRange, kStartEndRange,
                                         nvtx.by_thread_start ? "" : "ORDER BY n.globalTid, n.start, n.rowid"),
                             ctx));
    RangeCursor cursor(std::move(stmt), nvtx.domains);
    cursor.Next();
    return cursor;
  }

  // `holds_last`: the record holds the frames the call before gave it (a
  // reused record): they are set again only when the open ranges changed.
  // True when it changed the frames (false: the launch holds the last ones).
  bool Attribute(std::int64_t tid, std::int64_t t, model::LaunchRecord& launch, bool holds_last = false) {
    bool changed = !holds_last;
    if (tid != tid_) {
      tid_ = tid;
      active_.clear();
      changed = true;
      while (row_ && row_tid_ < tid) Next();
    }
    while (row_ && row_tid_ == tid && row_->start <= t) {
      active_.push_back(std::move(*row_));
      changed = true;
      Next();
    }
    if (std::erase_if(active_, [t](const ThreadRange& r) { return r.end < t; }) > 0) changed = true;
    if (!changed) return false;
    // As AddOpenRange adds them, into frames a reused record already holds
    // (assigning a name keeps its buffer: no allocation per launch).
    std::size_t stack = 0, start_end = 0;
    for (const ThreadRange& r : active_) {
      auto& frames = r.push_pop ? launch.nvtx_stack : launch.nvtx_start_end;
      std::size_t& used = r.push_pop ? stack : start_end;
      if (used > model::kMaxNvtxDepth) continue;
      if (used < frames.size()) {
        frames[used] = r.frame;
      } else {
        frames.push_back(r.frame);
      }
      ++used;
    }
    launch.nvtx_stack.resize(stack);
    launch.nvtx_start_end.resize(start_end);
    return true;
  }

  // SQLite's code when reading the ranges failed (SQLITE_DONE: read to the end or still reading).
  int status() const { return status_; }

 private:
  RangeCursor(Stmt stmt, const std::map<std::int64_t, std::string>& domains)
      : stmt_(std::move(stmt)), domains_(&domains) {}

  void Next() {
    row_.reset();
    sqlite3_stmt* s = stmt_.get();
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
      if (rc != SQLITE_DONE) status_ = rc;
      return;
    }
    std::string domain;
    if (auto id = Int(s, 5); id && *id != 0) {
      if (auto it = domains_->find(*id); it != domains_->end()) domain = it->second;
    }
    row_tid_ = sqlite3_column_int64(s, 4);
    row_ =
        ThreadRange{sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2) == kPushPopRange,
                    model::NvtxFrame{std::move(domain), Text(s, 3), sqlite3_column_int64(s, 6)}};
  }

  Stmt stmt_;
  const std::map<std::int64_t, std::string>* domains_;
  std::optional<ThreadRange> row_;
  std::int64_t row_tid_ = 0;
  int status_ = SQLITE_DONE;
  std::int64_t tid_ = INT64_MIN;
  std::vector<ThreadRange> active_;  // by start: outer push/pop ranges first
};

// The API call that launched a GPU operation (alias `op`): same correlation
// id, same process. For range attribution the rows are ordered by launching
// thread and call time, as RangeSweep needs them; otherwise they keep the
// table's order (by start, as the timeline overview wants them).
std::string LaunchCallJoin(std::string_view op, bool by_call) {
  return fmt::format(
      "LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = {0}.correlationId "
      "AND (r.globalTid & ~16777215) = {0}.globalPid{1}",
      op, by_call ? " ORDER BY r.globalTid, r.start" : "");
}

// The launch call columns of a GPU row (all unknown where it has none).
struct LaunchCall {
  std::optional<std::int64_t> tid, start, end, name_id;
};

// The CUDA API rows in table order, for a merge join with GPU rows that come
// in correlation id order: nothing is held but the current row and the next,
// and no index or sort is built. It stops being `ordered` when the ids of the
// API rows do not strictly increase (then the SQL join is used instead).
// Rows without a correlation id or thread join nothing; with `sums`, every
// row read is also summed there (the API summary's pass).
class CallCursor {
 public:
  static Result<CallCursor> Open(sqlite3* db, const ImportContext& ctx, ApiCallGroups* sums = nullptr) {
    ASSIGN_OR_RETURN(Stmt stmt, Prepare(db,
                                        "SELECT llmpo_row(?1, correlationId, globalTid, start, end, nameId) "
                                        "FROM CUPTI_ACTIVITY_KIND_RUNTIME",
                                        ctx));
    CallCursor cursor(std::move(stmt), sums);
    cursor.Read(cursor.cur_);
    cursor.Read(cursor.next_);
    return cursor;
  }

  // The call with this correlation id whose thread is in process `pid`, or
  // nullptr; ids must not decrease from one call to the next.
  const LaunchCall* Find(std::int64_t corr, std::optional<std::int64_t> pid) {
    while (cur_.valid && cur_.corr < corr && ordered_) {
      cur_ = next_;
      Read(next_);
    }
    if (!cur_.valid || cur_.corr != corr || !pid || (*cur_.call.tid & ~std::int64_t{0xFFFFFF}) != *pid) return nullptr;
    return &cur_.call;
  }

  bool ordered() const { return ordered_; }
  int status() const { return status_; }

  // Reads the rows not read yet, for `sums` (the cursor finds nothing after).
  void ReadToEnd() {
    cur_.valid = false;
    do Read(next_);
    while (next_.valid);
  }

 private:
  struct Row {
    bool valid = false;
    std::int64_t corr = 0;
    LaunchCall call;
  };
  // Each API row as SQLite makes it: summed, and kept when it joins.
  struct Capture : RowHook {
    ApiCallGroups* sums = nullptr;
    std::optional<std::int64_t> corr;
    LaunchCall call;
    void OnRow(sqlite3_value** v, int count) override {
      if (count != 5) return;
      if (sums != nullptr) sums->Add(v[4], v[2], v[3]);
      corr = Int(v[0]);
      call = LaunchCall{Int(v[1]), Int(v[2]), Int(v[3]), Int(v[4])};
    }
  };

  CallCursor(Stmt stmt, ApiCallGroups* sums)
      : stmt_(std::move(stmt)), capture_(std::make_unique<Capture>()) {
    capture_->sums = sums;
    BindRowHook(stmt_.get(), capture_.get());
  }

  void Read(Row& row) {
    row.valid = false;
    sqlite3_stmt* s = stmt_.get();
    // Never stepped past the end: sqlite3_step would run the query again.
    while (!done_) {
      const int rc = sqlite3_step(s);
      if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE) status_ = rc;
        done_ = true;
        return;
      }
      if (capture_->corr && capture_->call.tid) {
        row = Row{true, *capture_->corr, capture_->call};
        if (row.corr <= last_corr_) ordered_ = false;
        last_corr_ = row.corr;
        return;
      }
    }
  }

  Stmt stmt_;
  std::unique_ptr<Capture> capture_;  // on the heap: the statement keeps its address while the cursor moves
  Row cur_, next_;
  std::int64_t last_corr_ = INT64_MIN;
  bool ordered_ = true;
  bool done_ = false;
  int status_ = SQLITE_DONE;
};

// The first pass over a GPU table: its query (the table's rows in table
// order; no join), where each row's correlation id and process are, and the
// columns the row's launch call (thread, start, end, name) is joined into
// in what the pass keeps.
struct CheckQuery {
  std::vector<std::string> columns;  // the result columns' expressions ("NULL" for the call's)
  std::string from;                  // FROM ...
  int corr_column, pid_column;
  std::array<int, 4> call_columns;
};

// A check query's rows, as SQLite makes them: the columns its call does not
// fill, by the query's column numbers.
struct CheckRowCapture : RowHook {
  std::vector<int> read;  // which column each value is
  std::array<RowSpill::Column, RowSpill::kMaxColumns> row;
  void OnRow(sqlite3_value** v, int count) override {
    const int n = std::min(count, static_cast<int>(read.size()));
    for (int i = 0; i < n; ++i) row[static_cast<std::size_t>(read[static_cast<std::size_t>(i)])] = Int(v[i]);
  }
};

// Whether a merge join of the query's rows (in table order) with the API
// rows gives the rows and order of the SQL join: GPU rows by nondecreasing
// correlation id and, with `by_call`, by nondecreasing (thread, call start)
// of their calls, rows without a call first, as the join's ORDER BY puts
// them (SQLite's sorter keeps ties in the order they came, the table's).
// With `sums`, the API calls are summed there, all of them where the answer
// is true. Each row, its call joined, goes to `spill` while `spilled` stays
// true (it turns false when the spill cannot be written).
Result<bool> CanMergeCalls(sqlite3* db, const ImportContext& ctx, const char* table, const CheckQuery& query,
                           bool by_call, ApiCallGroups* sums, RowSpill& spill, bool& spilled) {
  const int columns = std::min(static_cast<int>(query.columns.size()), static_cast<int>(RowSpill::kMaxColumns));
  CheckRowCapture capture;
  std::string sql = "SELECT llmpo_row(?1";
  for (int i = 0; i < columns; ++i) {
    if (std::find(query.call_columns.begin(), query.call_columns.end(), i) != query.call_columns.end()) continue;
    capture.read.push_back(i);  // a column the call does not fill
    sql += ", " + query.columns[static_cast<std::size_t>(i)];
  }
  sql += ") " + query.from;
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db, sql, ctx));
  BindRowHook(stmt.get(), &capture);
  ASSIGN_OR_RETURN(CallCursor calls, CallCursor::Open(db, ctx, sums));
  std::optional<std::int64_t> last_corr;
  using Key = std::optional<std::pair<std::int64_t, std::optional<std::int64_t>>>;  // nullopt first, as in SQL
  Key last_key;
  sqlite3_stmt* s = stmt.get();
  auto& row = capture.row;
  int rc = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const auto corr = row[query.corr_column];
    if (corr && last_corr && *corr < *last_corr) return false;
    if (corr) last_corr = corr;
    const LaunchCall* call = corr ? calls.Find(*corr, row[query.pid_column]) : nullptr;
    if (!calls.ordered()) return false;
    const LaunchCall joined = call ? *call : LaunchCall{};
    row[query.call_columns[0]] = joined.tid;
    row[query.call_columns[1]] = joined.start;
    row[query.call_columns[2]] = joined.end;
    row[query.call_columns[3]] = joined.name_id;
    spilled = spilled && spill.Put(std::span(row.data(), columns));
    if (!by_call) continue;
    const Key key = call ? Key{{*call->tid, call->start}} : Key{};
    if (key < last_key) return false;
    last_key = key;
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, fmt::format("reading {} failed", table));
  const bool ordered = calls.ordered();  // of the calls a GPU row may join: those read so far
  if (sums != nullptr && ordered) calls.ReadToEnd();
  if (calls.status() != SQLITE_DONE) return SqlError(ctx, db, "reading the CUDA API calls failed");
  return ordered;
}

// A GPU table's rows and their launch calls by a merge join: the rows the
// first pass kept, calls joined (neither table is read again), else, where
// they could not be kept, from the API rows read again beside the table's.
struct MergedCalls {
  std::optional<RowSpill> rows;
  std::optional<CallCursor> cursor;
  std::array<RowSpill::Column, RowSpill::kMaxColumns> row;  // the last row taken from `rows`
  bool has_row = false;
  bool lost = false;  // the kept rows were not the rows read again: the table changed between the passes

  // For a pass that reads the table again (rowid in `rowid_column`,
  // correlation id and process in columns 4 and 5): the current row's call,
  // from kept rows of (rowid, thread, start, end, name), or the API rows. A
  // join may repeat a row: it gets the same call; rows the pass skipped
  // (damaged ones) are passed over (rowids grow in table order).
  LaunchCall Of(sqlite3_stmt* s, int rowid_column) {
    if (rows) {
      const std::int64_t rowid = sqlite3_column_int64(s, rowid_column);
      while (!lost && (!has_row || row[0].value_or(INT64_MIN) < rowid)) {
        has_row = rows->Next(row);
        lost = !has_row;
      }
      if (lost || row[0] != rowid) {
        lost = true;
        return LaunchCall{};
      }
      return LaunchCall{row[1], row[2], row[3], row[4]};
    }
    const auto corr = Int(s, 4);
    const LaunchCall* call = corr ? cursor->Find(*corr, Int(s, 5)) : nullptr;
    return call ? *call : LaunchCall{};
  }

  Status Check(sqlite3* db, const ImportContext& ctx, const char* table) const {
    if (lost || (rows && rows->failed())) {
      return MakeError(ExitStatus::kInput,
                       fmt::format("{}: {} changed while it was read (another program writes the file?), or the "
                                   "scratch copy of its rows in the output folder could not be read back",
                                   ctx.source, table))
          .WithNote("import it again once nothing writes to it, with room in the output folder");
    }
    if (cursor && cursor->status() != SQLITE_DONE) return SqlError(ctx, db, "reading the CUDA API calls failed");
    return OkStatus();
  }
};

// The merge join of `table`'s rows with their launch calls where the
// tables' order allows one (CanMergeCalls); none: join them by SQL (an
// automatic index and a sort of every joined row). With `sums`, set to the
// API summary's sums where the check read every call.
Result<std::optional<MergedCalls>> MergeCalls(sqlite3* db, const ImportContext& ctx, const char* table,
                                              const CheckQuery& query, bool by_call,
                                              std::optional<ApiCallGroups>* sums = nullptr) {
  ApiCallGroups read;
  RowSpill spill;
  bool spilled = true;
  ASSIGN_OR_RETURN(const bool can_merge,
                   CanMergeCalls(db, ctx, table, query, by_call, sums ? &read : nullptr, spill, spilled));
  if (!can_merge) return std::optional<MergedCalls>();
  if (sums != nullptr) *sums = std::move(read);
  std::optional<MergedCalls> merged(std::in_place);
  if (spilled && spill.Rewind()) {
    merged->rows.emplace(std::move(spill));
  } else {
    ASSIGN_OR_RETURN(CallCursor calls, CallCursor::Open(db, ctx));
    merged->cursor.emplace(std::move(calls));
  }
  return merged;
}

// Whether `table` has `column` (the export's schema grows between releases).
bool HasColumn(sqlite3* db, const char* table, const char* column) {
  sqlite3_stmt* raw = nullptr;
  sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &raw, nullptr);
  Stmt stmt(raw);
  if (!stmt) return false;
  sqlite3_bind_text(raw, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(raw, 2, column, -1, SQLITE_STATIC);
  return sqlite3_step(raw) == SQLITE_ROW;
}

// Columns 13, 14: the graph and graph node of a kernel (2023+ exports have
// graphNodeId, later ones graphId too; both null unless nsys traced graphs
// node by node).
// KernelQuery's result columns, in order.
std::vector<std::string> KernelColumns(sqlite3* db, bool with_runtime) {
  const char* kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
  const auto call = [&](const char* column) { return std::string(with_runtime ? column : "NULL"); };
  return {"k.start",
          "k.end",
          "k.deviceId",
          "k.streamId",
          "k.correlationId",
          "k.globalPid",
          "k.demangledName",
          "k.rowid",
          call("r.globalTid"),
          call("r.start"),
          "k.shortName",
          call("r.end"),
          call("r.nameId"),
          HasColumn(db, kernels, "graphId") ? "k.graphId" : "NULL",
          HasColumn(db, kernels, "graphNodeId") ? "k.graphNodeId" : "NULL"};
}

std::string KernelFrom(bool with_runtime, bool by_call) {
  std::string from = "FROM CUPTI_ACTIVITY_KIND_KERNEL k NOT INDEXED ";
  if (with_runtime) from += LaunchCallJoin("k", by_call);
  return from;
}

std::string KernelQuery(sqlite3* db, bool with_runtime, bool by_call) {
  return fmt::format("SELECT {} {}", fmt::join(KernelColumns(db, with_runtime), ", "), KernelFrom(with_runtime, by_call));
}

// The launch call's times, name and thread, where the row has a call (all
// unknown where it has none: the record may be reused). `thread_of`: the
// thread id launch_thread holds the text of, if any; launches come in runs
// of one thread and one call name, so neither is spelled again for each.
void SetLaunchCall(const LaunchCall& call, StringIds& strings, model::LaunchRecord& launch,
                   std::optional<std::int64_t>& thread_of) {
  launch.launch_call_start_ns.reset();
  launch.launch_call_end_ns.reset();
  if (!call.tid) {
    launch.launch_call_name.clear();
    launch.launch_thread.clear();
    thread_of.reset();
    return;
  }
  const std::int64_t thread = *call.tid & 0xFFFFFF;
  if (thread_of != thread) {
    launch.launch_thread.clear();
    fmt::format_to(std::back_inserter(launch.launch_thread), "{}", thread);
    thread_of = thread;
  }
  launch.launch_call_start_ns = call.start;
  launch.launch_call_end_ns = call.end;
  if (const std::string* name = strings.Find(call.name_id)) {
    AssignIfChanged(launch.launch_call_name, ApiNameView(*name));
  } else {
    launch.launch_call_name.clear();
  }
}

// A kernel row in KernelQuery's columns, its launch call in 8, 9, 11, 12.
using KernelRow = std::array<RowSpill::Column, 15>;

// The kernel rows with their calls: those the merge's first pass kept, else
// KernelQuery's rows (calls by SQL join, by the API rows read again, or none).
class KernelRows {
 public:
  KernelRows(MergedCalls* merge, sqlite3_stmt* stmt, bool sql_join) : merge_(merge), stmt_(stmt), sql_join_(sql_join) {}

  // The next row into `row`; false after the last.
  bool Next(KernelRow& row) {
    if (stmt_ == nullptr) return merge_->rows->Next(row);
    if ((rc_ = sqlite3_step(stmt_)) != SQLITE_ROW) return false;
    for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 10, 13, 14}) row[i] = Int(stmt_, i);
    LaunchCall call;
    if (sql_join_) {
      call = LaunchCall{Int(stmt_, 8), Int(stmt_, 9), Int(stmt_, 11), Int(stmt_, 12)};
    } else if (merge_ != nullptr) {
      call = merge_->Of(stmt_, 7);
    }
    row[8] = call.tid;
    row[9] = call.start;
    row[11] = call.end;
    row[12] = call.name_id;
    return true;
  }
  // SQLite's code when reading the table failed (SQLITE_DONE: it did not).
  int status() const { return stmt_ == nullptr || rc_ == SQLITE_ROW ? SQLITE_DONE : rc_; }

 private:
  MergedCalls* merge_;
  sqlite3_stmt* stmt_;  // null: the merge's kept rows
  bool sql_join_;
  int rc_ = SQLITE_DONE;
};

// `nvtx`: the NVTX domains by id when the export has NVTX ranges (null:
// it has none), for attributing kernels to the ranges open at their launch.
// `api_sums`: set where the API calls were summed on the way.
Status ImportKernels(sqlite3* db, ImportContext& ctx, const NvtxTable* nvtx, std::optional<ApiCallGroups>& api_sums) {
  if (!HasTable(db, "CUPTI_ACTIVITY_KIND_KERNEL")) {
    ctx.diagnostics.Note(
        fmt::format("{}: no CUPTI_ACTIVITY_KIND_KERNEL table: nsys recorded no kernels "
                    "(was CUDA tracing on?)",
                    ctx.source));
    return OkStatus();
  }
  // The launch calls are joined whenever nsys traced them (launch overhead);
  // kernels are attributed to ranges only when there are ranges.
  const bool has_runtime = HasTable(db, "CUPTI_ACTIVITY_KIND_RUNTIME");
  const bool with_runtime = nvtx != nullptr && has_runtime;
  if (nvtx != nullptr && !with_runtime) {
    ctx.diagnostics.Note(
        fmt::format("{}: NVTX ranges but no CUDA API trace (CUPTI_ACTIVITY_KIND_RUNTIME): kernels "
                    "cannot be attributed to ranges",
                    ctx.source));
  }
  const auto processes = ProcessNames(db);
  // Kernels come from a few processes: the identity is looked up once per run of rows.
  std::optional<std::int64_t> label_pid;
  model::ProcessId label;
  std::optional<MergedCalls> merge;
  if (has_runtime) {
    const CheckQuery check{KernelColumns(db, false), KernelFrom(false, false), 4, 5, {8, 9, 11, 12}};
    ASSIGN_OR_RETURN(merge, MergeCalls(db, ctx, "CUPTI_ACTIVITY_KIND_KERNEL", check, with_runtime, &api_sums));
  }
  Stmt stmt;  // none where the merge kept the rows
  if (!merge || !merge->rows) {
    ASSIGN_OR_RETURN(stmt, Prepare(db, KernelQuery(db, has_runtime && !merge, with_runtime), ctx));
  }
  KernelRows rows(merge ? &*merge : nullptr, stmt.get(), has_runtime && !merge);
  ASSIGN_OR_RETURN(StringIds strings, StringIds::Open(db, ctx));
  std::optional<RangeCursor> sweep;
  if (with_runtime) {
    ASSIGN_OR_RETURN(sweep, RangeCursor::Open(db, ctx, *nvtx));
  }
  // One record for every row: each field is set (or reset) per row, and its
  // strings and frames keep their buffers from the row before.
  model::LaunchRecord launch;
  bool frames_from_sweep = false;  // launch's frames are those the sweep set last
  const std::uint64_t name_keys = model::NewNameKeySpace() << 32;  // | (StringIds id + 1)
  std::optional<std::int64_t> device_id;
  std::optional<std::int64_t> launch_thread_of;  // SetLaunchCall's
  // What the launch's origin (model::LaunchRecord::origin_key) was made
  // of: device, process, call thread and call name ids; a new origin key
  // when one of them changes, a new context key when it or the frames do.
  std::array<std::optional<std::int64_t>, 4> origin_ids;
  KernelRow row;
  while (rows.Next(row)) {
    ctx.diagnostics.CountRow();
    launch.start_ns = row[0];
    launch.end_ns = row[1];
    auto name_id = row[6];  // the demangled name, else the short one
    const std::string* name = strings.Find(name_id);
    if (name == nullptr) name = strings.Find(name_id = row[10]);
    // Equal ids are equal names: the sinks find a name's answers by its key, unhashed.
    const std::uint64_t key = name != nullptr && *name_id >= 0 && *name_id < 0xFFFFFFFF ? name_keys | (*name_id + 1) : 0;
    if (key == 0 || key != launch.kernel_name_key) {
      if (name != nullptr) {
        launch.kernel_name = *name;
      } else {
        launch.kernel_name.clear();
      }
    }
    launch.kernel_name_key = key;
    // The rowid is an integer: formatted here, not by SQLite's text conversion (a tenth of the row's cost).
    const fmt::format_int row_id(row[7].value_or(0));
    launch.result_id.assign(row_id.data(), row_id.size());
    if (!launch.start_ns || !launch.end_ns || *launch.end_ns < *launch.start_ns || launch.kernel_name.empty()) {
      ctx.diagnostics.Add(
          model::Diag::bad_kernel_row,
          fmt::format("{}: kernel row {}: no name, or end before start; skipped", ctx.source, launch.result_id));
      continue;
    }
    launch.duration_ns = static_cast<double>(*launch.end_ns - *launch.start_ns);
    if (const auto dev = row[2]; dev != device_id) {  // the device's text only when it changes
      device_id = dev;
      launch.device = dev ? std::to_string(*dev) : std::string();
    }
    launch.stream = row[3];
    launch.correlation_id = row[4];
    launch.graph_id = row[13];
    launch.graph_node_id = row[14];
    if (const auto pid = row[5]; pid != label_pid || !label.Known()) {
      label_pid = pid;
      label = ProcessOf(pid, processes);
    }
    launch.process = label;
    launch.has_nvtx = with_runtime;
    const LaunchCall call{row[8], row[9], row[11], row[12]};
    launch.global_tid = call.tid;
    SetLaunchCall(call, strings, launch, launch_thread_of);
    const std::array<std::optional<std::int64_t>, 4> ids{row[2], row[5], call.tid, call.tid ? call.name_id : std::nullopt};
    const bool origin_changed = launch.origin_key == 0 || ids != origin_ids;
    if (origin_changed) launch.origin_key = model::NewContextKey();
    bool context_changed = origin_changed || launch.context_key == 0;
    origin_ids = ids;
    if (with_runtime && launch.global_tid) {
      // Sets both lists.
      context_changed |= sweep->Attribute(*launch.global_tid, call.start.value_or(0), launch, frames_from_sweep);
      frames_from_sweep = true;
    } else {
      context_changed |= frames_from_sweep;
      launch.nvtx_stack.clear();
      launch.nvtx_start_end.clear();
      frames_from_sweep = false;
    }
    if (context_changed) launch.context_key = model::NewContextKey();
    if (with_runtime && !launch.global_tid) {
      ctx.diagnostics.Add(model::Diag::kernel_without_launch_call,
                          fmt::format("{}: kernel row {} has no matching CUDA API call; it is outside every range",
                                      ctx.source, launch.result_id));
    }
    ctx.sink.OnLaunch(launch);
  }
  if (rows.status() != SQLITE_DONE) return SqlError(ctx, db, "reading kernels failed");
  if (merge) RETURN_IF_ERROR(merge->Check(db, ctx, "CUPTI_ACTIVITY_KIND_KERNEL"));
  if (sweep && sweep->status() != SQLITE_DONE) return SqlError(ctx, db, "reading NVTX ranges failed");
  return OkStatus();
}

// Copies and memsets: not kernels, but GPU work of the ranges that launched
// them (gpu_ops_ms), attributed like kernels.
Status ImportGpuOps(sqlite3* db, ImportContext& ctx, const NvtxTable* nvtx,
                    const std::map<std::int64_t, std::string>& processes, const char* table) {
  if (!HasTable(db, table)) return OkStatus();
  const bool memset = std::string_view(table).ends_with("MEMSET");
  const bool with_runtime = nvtx != nullptr && HasTable(db, "CUPTI_ACTIVITY_KIND_RUNTIME");
  // A copy's memory kinds, decoded by the export's own enum table (its ids differ between versions).
  const bool kinds = !memset && HasTable(db, "ENUM_CUDA_MEM_KIND") && HasColumn(db, table, "srcKind") &&
                     HasColumn(db, table, "dstKind");
  std::optional<MergedCalls> merge;
  if (with_runtime) {
    const CheckQuery check{{"rowid", "NULL", "NULL", "NULL", "NULL", "correlationId", "globalPid"},
                           fmt::format("FROM {} NOT INDEXED", table),
                           5,
                           6,
                           {1, 2, 3, 4}};
    ASSIGN_OR_RETURN(merge, MergeCalls(db, ctx, table, check, true));
  }
  const bool sql_join = with_runtime && !merge;
  std::string sql = fmt::format(
      "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, m.globalPid, m.rowid, {}, {} "
      "FROM {} m NOT INDEXED ",
      sql_join ? "r.globalTid, r.start" : "NULL, NULL",
      kinds ? "COALESCE(sk.label, sk.name), COALESCE(dk.label, dk.name)" : "NULL, NULL", table);
  if (kinds) {
    sql += "LEFT JOIN ENUM_CUDA_MEM_KIND sk ON sk.id = m.srcKind LEFT JOIN ENUM_CUDA_MEM_KIND dk ON dk.id = m.dstKind ";
  }
  if (sql_join) sql += LaunchCallJoin("m", true);
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db, sql, ctx));
  std::optional<RangeCursor> sweep;
  if (with_runtime) {
    ASSIGN_OR_RETURN(sweep, RangeCursor::Open(db, ctx, *nvtx));
  }
  sqlite3_stmt* s = stmt.get();
  int rc = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    ctx.diagnostics.CountRow();
    model::LaunchRecord op;
    op.kind = memset ? model::LaunchKind::kMemset : model::LaunchKind::kMemcpy;
    op.kernel_name = memset ? "[CUDA memset]" : "[CUDA memcpy]";
    op.start_ns = Int(s, 0);
    op.end_ns = Int(s, 1);
    op.result_id = Text(s, 6);
    if (!op.start_ns || !op.end_ns || *op.end_ns < *op.start_ns) {
      ctx.diagnostics.Add(model::Diag::bad_gpu_op_row,
                          fmt::format("{}: {} row {}: end before start; skipped", ctx.source, table, op.result_id));
      continue;
    }
    op.duration_ns = static_cast<double>(*op.end_ns - *op.start_ns);
    if (auto dev = Int(s, 2)) op.device = std::to_string(*dev);
    op.stream = Int(s, 3);
    op.correlation_id = Int(s, 4);
    op.process = ProcessOf(Int(s, 5), processes);
    op.has_nvtx = with_runtime;
    if (kinds && sqlite3_column_type(s, 9) != SQLITE_NULL && sqlite3_column_type(s, 10) != SQLITE_NULL)
      op.copy_memory = Text(s, 9) + " -> " + Text(s, 10);
    const LaunchCall call = merge ? merge->Of(s, 6) : LaunchCall{Int(s, 7), Int(s, 8), {}, {}};
    op.global_tid = call.tid;
    if (with_runtime && op.global_tid) sweep->Attribute(*op.global_tid, call.start.value_or(0), op);
    ctx.sink.OnLaunch(op);
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, fmt::format("reading {} failed", table));
  if (merge) RETURN_IF_ERROR(merge->Check(db, ctx, table));
  if (sweep && sweep->status() != SQLITE_DONE) return SqlError(ctx, db, "reading NVTX ranges failed");
  return OkStatus();
}

Result<std::map<std::int64_t, std::string>> DomainNames(sqlite3* db, const ImportContext& ctx) {
  std::map<std::int64_t, std::string> domains;
  ASSIGN_OR_RETURN(Stmt stmt, Prepare(db,
                                      fmt::format("SELECT n.domainId, COALESCE(n.text, t.value) FROM NVTX_EVENTS n "
                                                  "LEFT JOIN StringIds t ON t.id = n.textId WHERE n.eventType = {}",
                                                  kDomainCreate),
                                      ctx));
  int rc = 0;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    if (auto id = Int(stmt.get(), 0)) domains[*id] = Text(stmt.get(), 1);
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, "reading NVTX domains failed");
  return domains;
}

// Whether the ranges' table order is the order of ImportNvtx's and
// RangeCursor's ORDER BY (a pass over three columns instead of two sorts).
// Ties in start are left to the sort: its order of equal keys is SQLite's.
Status CheckNvtxOrder(sqlite3* db, const ImportContext& ctx, NvtxTable& nvtx) {
  ASSIGN_OR_RETURN(Stmt stmt,
                   Prepare(db,
                           fmt::format("SELECT start, end IS NOT NULL, globalTid FROM NVTX_EVENTS NOT INDEXED "
                                       "WHERE eventType IN ({}, {})",
                                       kPushPopRange, kStartEndRange),
                           ctx));
  bool by_start = true, by_thread_start = true;
  std::optional<std::int64_t> last_start;
  std::optional<std::pair<std::int64_t, std::int64_t>> last_thread_start;
  sqlite3_stmt* s = stmt.get();
  int rc = 0;
  while ((by_start || by_thread_start) && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const auto start = Int(s, 0), tid = Int(s, 2);
    // A start or thread that is no integer sorts as SQL sorts reals and text, not as Int reads it: sort.
    if ((start && sqlite3_column_type(s, 0) != SQLITE_INTEGER) ||
        (tid && sqlite3_column_type(s, 2) != SQLITE_INTEGER)) {
      by_start = by_thread_start = false;
      break;
    }
    if (!start || (last_start && *start <= *last_start)) by_start = false;
    if (start) last_start = start;
    if (!start || sqlite3_column_int(s, 1) == 0 || !tid) continue;  // RangeCursor skips it
    const std::pair key{*tid, *start};
    if (last_thread_start && key < *last_thread_start) by_thread_start = false;
    last_thread_start = key;
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return SqlError(ctx, db, "reading NVTX ranges failed");
  nvtx.by_start = by_start;
  nvtx.by_thread_start = by_thread_start;
  return OkStatus();
}

Status ImportNvtx(sqlite3* db, ImportContext& ctx, NvtxTable& nvtx,
                  const std::map<std::int64_t, std::string>& processes) {
  ASSIGN_OR_RETURN(Stmt stmt,
                   Prepare(db,
                           fmt::format("SELECT n.start, n.end, n.eventType, n.rangeId, "
                                       "COALESCE(n.text, t.value), n.globalTid, n.domainId, n.rowid "
                                       "FROM NVTX_EVENTS n NOT INDEXED LEFT JOIN StringIds t ON t.id = n.textId "
                                       "WHERE n.eventType IN ({}, {}){}",
                                       kPushPopRange, kStartEndRange, nvtx.by_start ? "" : " ORDER BY n.start"),
                           ctx));
  sqlite3_stmt* s = stmt.get();
  int rc = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    ctx.diagnostics.CountRow();
    model::NvtxRange range;
    range.start_ns = Int(s, 0);
    range.end_ns = Int(s, 1);
    range.push_pop = sqlite3_column_int(s, 2) == kPushPopRange;
    range.range_id = Int(s, 3);
    range.name = Text(s, 4);
    range.global_tid = Int(s, 5);
    range.process = ProcessOf(range.global_tid, processes);
    range.unix_offset_ns = nvtx.session_start_unix_ns;
    if (auto domain = Int(s, 6); domain && *domain != 0) range.domain = nvtx.domains[*domain];
    if (!range.end_ns) {
      ctx.diagnostics.Add(model::Diag::nvtx_range_not_closed,
                          fmt::format("{}: NVTX range '{}' has no end (the program exited inside it)", ctx.source,
                                      model::Excerpt(range.name)));
    }
    ctx.sink.OnNvtxRange(range);
  }
  if (rc != SQLITE_DONE) return SqlError(ctx, db, "reading NVTX ranges failed");
  return OkStatus();
}

}  // namespace

namespace {
std::mutex scratch_lock;  // sqlite3_temp_directory's
}  // namespace

void UseSqliteScratchDir(const std::filesystem::path& dir) {
  // sqlite3_temp_directory is a global that must not change while a
  // connection uses it: set it once per folder, under a lock (import -j).
  const std::lock_guard<std::mutex> hold(scratch_lock);
  if (sqlite3_temp_directory != nullptr && dir == sqlite3_temp_directory) return;
  char* old = sqlite3_temp_directory;
  sqlite3_temp_directory = sqlite3_mprintf("%s", dir.c_str());
  sqlite3_free(old);
}

std::filesystem::path SqliteScratchDir() {
  const std::lock_guard<std::mutex> hold(scratch_lock);
  return sqlite3_temp_directory != nullptr ? std::filesystem::path(sqlite3_temp_directory) : std::filesystem::path();
}

Status ImportNsysSqlite(const std::filesystem::path& file, ImportContext& ctx) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) return SqlError(ctx, raw, "cannot open the SQLite export");
  RETURN_IF_ERROR(CheckReadable(db.get(), ctx));
  RETURN_IF_ERROR(AddRowHookFunction(db.get(), ctx));
  if (!HasTable(db.get(), "StringIds")) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: a SQLite database, but not an nsys export (no StringIds "
                                                     "table)",
                                                     ctx.source))
        .WithNote("export one with: nsys export --type sqlite REPORT.nsys-rep");
  }
  const auto processes = ProcessNames(db.get());
  // The ranges go to the sinks in start order; launches are attributed to
  // them by a second, per-thread pass beside each GPU table (RangeCursor).
  std::optional<NvtxTable> nvtx_table;
  if (HasTable(db.get(), "NVTX_EVENTS")) {
    nvtx_table.emplace();
    ASSIGN_OR_RETURN(nvtx_table->domains, DomainNames(db.get(), ctx));
    nvtx_table->session_start_unix_ns = SessionStartUnixNs(db.get());
    RETURN_IF_ERROR(CheckNvtxOrder(db.get(), ctx, *nvtx_table));
    RETURN_IF_ERROR(ImportNvtx(db.get(), ctx, *nvtx_table, processes));
  }
  ctx.sink.OnNvtxRangesDone();  // none come after this
  const NvtxTable* nvtx = nvtx_table ? &*nvtx_table : nullptr;
  std::optional<nsys_sqlite::ApiCallGroups> api_sums;  // summed while the kernels' launch calls are checked
  RETURN_IF_ERROR(ImportKernels(db.get(), ctx, nvtx, api_sums));
  RETURN_IF_ERROR(ImportGpuOps(db.get(), ctx, nvtx, processes, "CUPTI_ACTIVITY_KIND_MEMCPY"));
  RETURN_IF_ERROR(ImportGpuOps(db.get(), ctx, nvtx, processes, "CUPTI_ACTIVITY_KIND_MEMSET"));
  return nsys_sqlite::ImportApiSummary(db.get(), ctx, api_sums ? &*api_sums : nullptr);
}

}  // namespace llmpo::ingest
