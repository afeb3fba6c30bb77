// A PostgreSQL transaction: BEGIN, then COMMIT or ROLLBACK (targets/pg_transaction.h).
#include "targets/pg_transaction.h"

#include "targets/postgres.h"

namespace perflab {

PgTransaction::PgTransaction(PgConnection& conn, const std::string& begin_sql) : conn_(conn) {
  conn_.exec(begin_sql);
}

PgTransaction::~PgTransaction() {
  if (!open_) return;
  try {
    conn_.exec("ROLLBACK");
  } catch (...) {  // a dead connection has nothing left to roll back
  }
}

void PgTransaction::commit() {
  open_ = false;  // a failed COMMIT ends the transaction too
  conn_.exec("COMMIT");
}

}  // namespace perflab
