#pragma once
// A thin RAII layer over SQLite's C API (Debian's libsqlite3-dev): a connection, prepared
// statements, and transactions that roll back unless committed. The C API, not a C++ wrapper
// library: the history needs a dozen calls, and one more dependency (SQLiteCpp) would have to be
// installed and linked statically for the device build as well. Every failure throws SqliteError
// with SQLite's message and the file's name: for the verbs that read and write histories (which
// measure nothing) a file they cannot use is bad input, exit code 2.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "orchestrator/errors.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace isobench::orchestrator::history {

class SqliteError : public UsageError {
  using UsageError::UsageError;
};

class Statement;

// read: nothing is written to the file (not even WAL mode); write: an existing file; create: the
// file too, when missing.
enum class OpenMode { read, write, create };

class Database {
 public:
  // Opens `path` as `mode` says. Concurrent writers wait for one another (busy timeout) instead
  // of failing, and a file opened to write is switched to WAL mode, so readers never block a
  // writer.
  Database(const std::string& path, OpenMode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const { return path_; }
  void exec(const std::string& sql);  // one or more statements without parameters
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id() const;
  [[noreturn]] void fail(const std::string& what) const;  // throws with SQLite's last message

 private:
  void switch_to_wal();  // PRAGMA journal_mode = WAL, tried again while another connection holds the file
  friend class Statement;
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters by position, from 1.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& text);
  // Advances to the next row: false when there is none. A statement that returns no rows runs
  // once with step(); reset() lets it run again with new parameters.
  bool step();
  void reset();
  std::int64_t integer(int column) const;  // columns from 0
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE: the write lock is taken at the start, so two writers never both read and
// then collide at their first write (which SQLite would answer with SQLITE_BUSY at once, beyond
// the busy timeout). Rolls back in the destructor unless commit() ran.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace isobench::orchestrator::history
