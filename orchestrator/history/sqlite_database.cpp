#include "orchestrator/history/sqlite_database.hpp"

#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace isobench::orchestrator::history {

namespace {
// Long enough for another nightly job's add (a few thousand samples) to finish.
constexpr int kBusyTimeoutMs = 60'000;
}  // namespace

Database::Database(const std::string& path, OpenMode mode) : path_(path) {
  const int flags = (mode == OpenMode::read     ? SQLITE_OPEN_READONLY
                     : mode == OpenMode::create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                                : SQLITE_OPEN_READWRITE) |
                    SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(path + ": cannot open: " + message);
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db_, 1);
  // A constructor that throws runs no destructor: a file that is not a database fails here, and
  // its connection must be closed before the error leaves.
  try {
    exec("PRAGMA foreign_keys = ON");
    // WAL is a property of the file: the first connection that writes switches it, the others
    // find it so.
    if (mode != OpenMode::read) switch_to_wal();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Database::~Database() { sqlite3_close(db_); }

// The switch needs the file to itself for a moment, and while another connection holds it (a
// second writer opening beside this one, in test_history about one time in ten) SQLite answers
// BUSY at once, without the busy handler: tried again here for as long as the busy timeout.
void Database::switch_to_wal() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, "PRAGMA journal_mode = WAL", -1, &stmt, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return;
    const int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline)
      fail("cannot run \"PRAGMA journal_mode = WAL\"");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void Database::fail(const std::string& what) const { throw SqliteError(path_ + ": " + what + ": " + sqlite3_errmsg(db_)); }

void Database::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw SqliteError(path_ + ": " + text + " (in: " + sql.substr(0, 80) + ")");
  }
}

Statement Database::prepare(const std::string& sql) { return Statement(*this, sql); }

std::int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

Statement::Statement(Database& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.db_, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare \"" + sql.substr(0, 80) + "\"");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("cannot bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.fail("cannot bind");
  return *this;
}

Statement& Statement::bind(int index, const std::string& text) {
  if (sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("cannot bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("cannot run \"" + std::string(sqlite3_sql(stmt_)).substr(0, 80) + "\"");
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (done_) return;
  try {
    db_.exec("ROLLBACK");
  } catch (const SqliteError&) {  // nothing to roll back after a failed BEGIN; never throw here
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace isobench::orchestrator::history
