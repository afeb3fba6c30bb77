#pragma once
// A PostgreSQL transaction on a PgConnection: committed when asked, rolled back however else it
// is left.
#include <string>

namespace perflab {

class PgConnection;  // targets/postgres.h

// A transaction: BEGIN on construction, COMMIT by commit(); left any other way (an exception,
// an early return) it is rolled back, so the connection is never left in an aborted transaction.
class PgTransaction {
 public:
  explicit PgTransaction(PgConnection& conn, const std::string& begin_sql = "BEGIN");
  ~PgTransaction();
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;
  void commit();

 private:
  PgConnection& conn_;
  bool open_ = true;
};

}  // namespace perflab
