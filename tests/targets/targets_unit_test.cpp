// core/targets without servers: redaction, quoting, secrets, configuration checks.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>

#include "targets/owned_folder.h"
#include "targets/pg_conninfo.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/secret.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"
#include "targets/targets.h"

using namespace perflab;

// Redaction goes through libpq's own parser (PQconninfoParse): whatever libpq reads as the
// password is what goes, and the rest comes back as key=value (where and who first).
TEST(TargetsRedact, KeyValueDropsPassword) {
  EXPECT_EQ(redact_conninfo("host=db.example user=alice password=hunter2 dbname=app"),
            "host=db.example user=alice dbname=app");
  EXPECT_EQ(redact_conninfo("password=hunter2 host=h"), "host=h");
  EXPECT_EQ(redact_conninfo("host=h password=hunter2"), "host=h");
  EXPECT_EQ(redact_conninfo("host=h user=u"), "host=h user=u");
  EXPECT_EQ(redact_conninfo(""), "");
}

TEST(TargetsRedact, KeyValueQuotedAndSpaced) {
  std::string r = redact_conninfo("host=h password='hun ter\\' 2' user=u");
  EXPECT_EQ(r, "host=h user=u");
  EXPECT_EQ(redact_conninfo("host=h password = 'a b c' port=5432"), "host=h port=5432");
  EXPECT_EQ(redact_conninfo("host=h application_name='my app' password=x"),
            "host=h application_name='my app'");
  EXPECT_EQ(redact_conninfo("host=h application_name='o\\'neil\\\\'"),
            "host=h application_name='o\\'neil\\\\'");
  // A value that merely contains the word is kept.
  EXPECT_EQ(redact_conninfo("host=h application_name=password"),
            "host=h application_name=password");
}

TEST(TargetsRedact, Uri) {
  EXPECT_EQ(redact_conninfo("postgresql://user:secret@host/db"), "host=host user=user dbname=db");
  EXPECT_EQ(redact_conninfo("postgres://user:secret@host:5433/db?sslmode=require&password=x"),
            "host=host port=5433 user=user dbname=db sslmode=require");
  EXPECT_EQ(redact_conninfo("postgresql://host/db?password=x"), "host=host dbname=db");
  EXPECT_EQ(redact_conninfo("postgresql://u:p%40ss@[::1]:5432"), "host=::1 port=5432 user=u");
}

TEST(TargetsRedact, WhatLibpqCannotParseIsNotShown) {
  const std::string r = redact_conninfo("host=x password=hunter3 'unterminated");
  EXPECT_EQ(r.find("hunter3"), std::string::npos) << r;
  EXPECT_EQ(r.find("host"), std::string::npos) << r;
}

TEST(TargetsConninfo, PasswordIsTakenOut) {
  auto [kv, pw] = parse_conninfo("host=db.example port=6432 dbname=ev user=u password=s3cr'et");
  EXPECT_EQ(pw, "s3cr'et");
  EXPECT_EQ(kv, "host=db.example port=6432 user=u dbname=ev");
  auto [uri, upw] = parse_conninfo("postgresql://bob:hunter2@127.0.0.1:5433/x?sslmode=disable");
  EXPECT_EQ(upw, "hunter2");
  EXPECT_EQ(uri, "host=127.0.0.1 port=5433 user=bob dbname=x sslmode=disable");
  EXPECT_FALSE(parse_conninfo("host=127.0.0.1 dbname=perflab").password.has_value());
  try {
    parse_conninfo("host=x password=hunter3 'unterminated");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter3"), std::string::npos);
  }
}

TEST(TargetsQuote, Ident) {
  EXPECT_EQ(pg_quote_ident("perflab"), "\"perflab\"");
  EXPECT_EQ(pg_quote_ident("my\"schema"), "\"my\"\"schema\"");
  EXPECT_EQ(pg_quote_ident(""), "\"\"");
}

TEST(TargetsManaged, FreeLoopbackPortIsBindable) {
  int port = free_loopback_port();
  ASSERT_GT(port, 0);
  ASSERT_LT(port, 65536);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(fd);
}

TEST(TargetsManaged, PollUntilEndsWhenDoneOrAtTheDeadline) {
  using std::chrono::steady_clock;
  int calls = 0;
  EXPECT_TRUE(
      poll_until(steady_clock::now() + std::chrono::seconds(30), [&] { return ++calls == 3; }));
  EXPECT_EQ(calls, 3);
  calls = 0;
  const auto t0 = steady_clock::now();
  // A deadline a loaded machine does not pass between two calls (a stall of 100 ms after the
  // first call would leave it no second one).
  EXPECT_FALSE(poll_until(t0 + std::chrono::seconds(1), [&] {
    ++calls;
    return false;
  }));
  EXPECT_GE(steady_clock::now() - t0, std::chrono::seconds(1));
  // 20, 40, 80, 160, then 200 ms apart: at most 9 calls in a second (a loaded machine makes
  // fewer), where a fixed 20 ms would make 50.
  EXPECT_GE(calls, 2);
  EXPECT_LE(calls, 9);
}

TEST(TargetsManaged, MissingBinaryNamesPackage) {
  try {
    find_server_binary("perflab-no-such-server");
    FAIL() << "found a binary that does not exist";
  } catch (const ServerError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("perflab-no-such-server not found"), std::string::npos) << m;
    EXPECT_NE(m.find("apt-get install"), std::string::npos) << m;
  }
  EXPECT_THROW(find_server_binary("../bin/sh"), ServerError);
}

TEST(TargetsSecret, RandomPasswordsAreLongHexAndNeverRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string pw = random_password();
    EXPECT_EQ(pw.size(), 64u);
    EXPECT_EQ(pw.find_first_not_of("0123456789abcdef"), std::string::npos) << pw;
    seen.insert(pw);
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(random_password(16).size(), 32u);
  EXPECT_THROW(random_password(8), ServerError);
}

TEST(TargetsSecret, PrivateFileIsPrivateEvenWhenItExistedOpen) {
  TempFolder dir("perflab-secret-test-");
  const std::filesystem::path p = dir.path() / "pw";
  {
    std::ofstream open_to_all(p);
    open_to_all << "an older, longer text";
  }
  ::chmod(p.c_str(), 0666);
  write_private_file(p, "s3cret", 0600, {});
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::ifstream in(p);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "s3cret");
  // A link planted where the secret goes is not followed.
  const std::filesystem::path link = dir.path() / "link";
  std::filesystem::create_symlink(dir.path() / "elsewhere", link);
  EXPECT_THROW(write_private_file(link, "s3cret", 0600, {}), ServerError);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "elsewhere"));
}

TEST(TargetsConfigCheck, RejectsEmptySchemaPrefixAndConninfo) {
  TargetsConfig a;
  a.pg_schema = "";
  EXPECT_THROW(Targets{a}, std::invalid_argument);
  TargetsConfig b;
  b.redis_prefix = "";
  EXPECT_THROW(Targets{b}, std::invalid_argument);
  TargetsConfig c;
  c.pg_conninfo = "";
  EXPECT_THROW(Targets{c}, std::invalid_argument);
}

// A connect_timeout above Perflab's bound (or libpq's "for ever", 0) would make a run wait for
// it: refused before anything connects, naming the setting, for the server and each standby.
TEST(TargetsConfigCheck, RejectsAnUnboundedConnectTimeout) {
  EXPECT_EQ(pg_conninfo_refusal("host=h connect_timeout=60"), "");
  EXPECT_EQ(pg_conninfo_refusal("postgresql://h/d?connect_timeout=2"), "");
  EXPECT_EQ(pg_conninfo_refusal("host=h"), "");
  for (const char* c :
       {"host=h connect_timeout=600", "host=h connect_timeout=0", "host=h connect_timeout=-1",
        "host=h connect_timeout=5s", "postgresql://h/d?connect_timeout=3600"}) {
    const std::string why = pg_conninfo_refusal(c);
    EXPECT_NE(why.find("connect_timeout="), std::string::npos) << c << ": " << why;
    EXPECT_NE(why.find("1 to 60 seconds"), std::string::npos) << c << ": " << why;
  }
  EXPECT_NE(pg_conninfo_refusal("host='unclosed"), "");
  EXPECT_EQ(pg_conninfo_refusal("host=h password=s3cret connect_timeout=0").find("s3cret"),
            std::string::npos);
  TargetsConfig a;
  a.pg_conninfo = "host=127.0.0.1 port=1 connect_timeout=600";
  try {
    Targets t{a};
    FAIL() << "took connect_timeout=600";
  } catch (const TargetError& e) {
    EXPECT_EQ(e.field(), TargetField::PgServer);
  }
  TargetsConfig b;
  b.pg_conninfo = "host=127.0.0.1 port=1";
  b.pg_standby_conninfos = {"host=127.0.0.1 port=2", "host=127.0.0.1 port=3 connect_timeout=0"};
  try {
    Targets t{b};
    FAIL() << "took a standby's connect_timeout=0";
  } catch (const TargetError& e) {
    EXPECT_EQ(e.field(), TargetField::PgStandby);
    EXPECT_EQ(std::string(e.what()).rfind("standby 2: connect_timeout=0", 0), 0u) << e.what();
  }
}

TEST(TargetsConfigCheck, TooFewRedisNodesIsClear) {
  TargetsConfig cfg;
  cfg.redis_nodes = {parse_redis_endpoint("127.0.0.1:1")};
  Targets t(cfg);
  try {
    t.redis(3);
    FAIL() << "accepted 1 node for 3";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("needs 3 Redis nodes"), std::string::npos) << m;
    EXPECT_NE(m.find("only 1"), std::string::npos) << m;
  }
  EXPECT_TRUE(t.describe().empty());
}

TEST(TargetsManaged, MissingRedisToolsNameTheirDebianPackages) {
  std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", "/nonexistent-perflab-dir", 1);
  auto message = [](const std::string& name) -> std::string {
    try {
      find_server_binary(name);
    } catch (const ServerError& e) {
      return e.what();
    }
    return "found";
  };
  std::string server = message("redis-server");
  std::string bench = message("redis-benchmark");
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(server,
            "redis-server not found: install the Debian package redis-server "
            "(apt-get install redis-server)");
  EXPECT_NE(bench.find("install the Debian package redis-tools"), std::string::npos) << bench;
  // pgbench comes with the server on Debian 12, not with the client.
  EXPECT_EQ(debian_package_hint("pgbench"),
            "pgbench not found: install the Debian package postgresql (apt-get install "
            "postgresql)");
}

TEST(TargetsRedisInfo, FieldOfInfoText) {
  const std::string info = "# Server\r\nredis_version:7.0.15\r\nprocess_id:42\r\n";
  EXPECT_EQ(redis_info_field(info, "redis_version"), "7.0.15");
  EXPECT_EQ(redis_info_field(info, "process_id"), "42");
  EXPECT_EQ(redis_info_field(info, "role"), "");
  EXPECT_EQ(redis_info_field("cluster_state:ok", "cluster_state"), "ok");  // no line end
  EXPECT_EQ(redis_info_field("cluster_known_nodes:6\n", "cluster_known_nodes"), "6");
}

TEST(PgTextFormats, CopyFieldsAndByteaHex) {
  std::string out;
  perflab::pg_append_copy_text(out, "a\tb\\c\nd\re");
  EXPECT_EQ(out, "a\\tb\\\\c\\nd\\re");
  out.clear();
  perflab::pg_append_copy_bytea(out, std::string("\x00\xff\x10", 3));
  EXPECT_EQ(out, "\\\\x00ff10");
  EXPECT_EQ(perflab::pg_decode_bytea_hex("\\x00ff10"), std::string("\x00\xff\x10", 3));
  EXPECT_EQ(perflab::pg_decode_bytea_hex("\\x"), "");
  EXPECT_THROW(perflab::pg_decode_bytea_hex("abc"), perflab::PgError);
  EXPECT_THROW(perflab::pg_decode_bytea_hex("\\x0g"), perflab::PgError);
}

TEST(PgTextFormats, TimestampText) {
  EXPECT_EQ(perflab::pg_timestamp_text(0), "1970-01-01 00:00:00.000000");
  EXPECT_EQ(perflab::pg_timestamp_text(1'700'000'000'123'456), "2023-11-14 22:13:20.123456");
}
