// Small hand-made nsys SQLite exports for the importer's unit tests: the
// tables the importer reads (StringIds 1 = cudaLaunchKernel_v7000, 2 =
// gemm), filled with each test's own VALUES lists.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

namespace llmpo::testing {

inline std::string NsysExportSql(const std::string& nvtx_rows, const std::string& kernel_rows,
                                 const std::string& call_rows) {
  return "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
         "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm');"
         "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, rangeId INT, text TEXT, textId INT, "
         "globalTid INT, domainId INT);"
         "INSERT INTO NVTX_EVENTS VALUES " +
         nvtx_rows +
         ";CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, "
         "correlationId INT, globalPid INT, demangledName INT, shortName INT);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " +
         kernel_rows +
         ";CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, "
         "correlationId INT, nameId INT);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES " +
         call_rows + ";";
}

// `file` made by running `sql` in a new SQLite database.
inline std::filesystem::path WriteSqlite(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return file;
}

}  // namespace llmpo::testing
