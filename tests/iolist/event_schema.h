#pragma once
// The event store's tests' database: a schema of the test's own on the shared PostgreSQL, made
// anew by reset_schema, with a connection and an event id allocator; dropped when it goes.
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "iolist/event_store.h"
#include "servers.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"

namespace perflab::test {

struct EventSchema {
  explicit EventSchema(const std::string& base)
      : pg(shared_targets().postgres()),
        name(unique_name(base)),
        conn(pg.conninfo),
        ids(make_anew(conn, name)) {}
  ~EventSchema() {
    try {
      conn.exec("DROP SCHEMA IF EXISTS " + pg_quote_ident(name) + " CASCADE");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "dropping schema " << name << ": " << e.what();
    }
  }
  EventSchema(const EventSchema&) = delete;
  EventSchema& operator=(const EventSchema&) = delete;

  PgTarget pg;
  std::string name;
  PgConnection conn;
  iolist::EventIdAllocator ids;

 private:
  // Creates the schema anew; the last event id used in it.
  static std::int64_t make_anew(PgConnection& c, const std::string& schema) {
    iolist::reset_schema(c, schema);
    return iolist::EventIdAllocator::last_used(c, schema);
  }
};

}  // namespace perflab::test
