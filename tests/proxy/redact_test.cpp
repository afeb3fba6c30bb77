// What a reply may never show: secret CONFIG parameters, ACL passwords and their hashes, and the
// proxy's own credentials anywhere in the reply to an administrative command or a script.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proxy/redact.h"
#include "proxy/resp.h"

using namespace perflab::proxy;

namespace {

std::string array_of(const std::vector<std::string>& items) {
  std::string out;
  append_array_header(out, static_cast<std::int64_t>(items.size()));
  for (const auto& s : items) append_bulk(out, s);
  return out;
}

const std::vector<std::string> kSecrets = {"backend-pw", "client-pw"};

}  // namespace

TEST(Redact, WhatEachCommandGets) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(redaction_for(V{"config", "get", "*"}, true), Redact::ConfigGet);
  EXPECT_EQ(redaction_for(V{"ACL", "getuser", "default"}, true), Redact::Acl);
  EXPECT_EQ(redaction_for(V{"acl", "LIST"}, true), Redact::Acl);
  EXPECT_EQ(redaction_for(V{"SLOWLOG", "GET"}, true), Redact::Scan);
  EXPECT_EQ(redaction_for(V{"evalsha", "abc", "0"}, false), Redact::Scan);
  EXPECT_EQ(redaction_for(V{"FCALL_RO", "f", "0"}, false), Redact::Scan);
  EXPECT_EQ(redaction_for(V{"GET", "k"}, false), Redact::None);
  EXPECT_TRUE(secret_config_parameter("RequirePass"));
  EXPECT_TRUE(secret_config_parameter("tls-client-key-file-pass"));
  EXPECT_FALSE(secret_config_parameter("maxmemory"));
}

TEST(Redact, ConfigGetLeavesOutSecretParameters) {
  std::string r = array_of(
      {"maxmemory", "0", "requirepass", "backend-pw", "masterauth", "backend-pw", "port", "6379"});
  redact_reply(Redact::ConfigGet, r, kSecrets);
  EXPECT_EQ(r, array_of({"maxmemory", "0", "port", "6379"}));
  // A password that is not the proxy's is still left out.
  r = array_of({"requirepass", "someone-elses"});
  redact_reply(Redact::ConfigGet, r, kSecrets);
  EXPECT_EQ(r, array_of({}));
}

TEST(Redact, AclLeavesOutPasswordsAndHashes) {
  std::string user;
  append_array_header(user, 4);
  append_bulk(user, "flags");
  append_array_header(user, 1);
  append_bulk(user, "on");
  append_bulk(user, "passwords");
  append_array_header(user, 1);
  append_bulk(user, "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8");
  std::string want;
  append_array_header(want, 4);
  append_bulk(want, "flags");
  append_array_header(want, 1);
  append_bulk(want, "on");
  append_bulk(want, "passwords");
  append_array_header(want, 0);
  redact_reply(Redact::Acl, user, kSecrets);
  EXPECT_EQ(user, want);

  std::string list =
      array_of({"user default on #5e88489 ~* &* +@all", "user app on >plain ~app:*"});
  redact_reply(Redact::Acl, list, kSecrets);
  EXPECT_EQ(list, array_of({"user default on ~* &* +@all", "user app on ~app:*"}));
}

TEST(Redact, AReplyHoldingACredentialIsWithheld) {
  for (const std::string& secret : kSecrets) {
    std::string r;
    append_bulk(r, "x" + secret + "y");
    redact_reply(Redact::Scan, r, kSecrets);
    EXPECT_EQ(r.rfind("-ERR perflab-proxy withheld this reply", 0), 0u) << r;
  }
  std::string fine;
  append_bulk(fine, "no secret here");
  const std::string before = fine;
  redact_reply(Redact::Scan, fine, kSecrets);
  EXPECT_EQ(fine, before);
  std::string data;
  append_bulk(data, "backend-pw");  // a user's own value under GET: not the proxy's business
  redact_reply(Redact::None, data, kSecrets);
  EXPECT_EQ(data, "$10\r\nbackend-pw\r\n");
  std::string broken = "*2\r\n$3\r\nabc\r\n";
  redact_reply(Redact::ConfigGet, broken, kSecrets);
  EXPECT_EQ(broken.rfind("-ERR perflab-proxy could not read this reply", 0), 0u) << broken;
}
