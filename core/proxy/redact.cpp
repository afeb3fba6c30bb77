// Redaction of replies: the secret CONFIG parameters, ACL users' passwords, and any reply to an
// administrative command or a script that holds one of the proxy's own credentials.
#include "proxy/redact.h"

#include <algorithm>
#include <array>

#include "common/text.h"
#include "proxy/resp.h"

namespace perflab::proxy {

namespace {

// Redis 7's parameters whose value is a password or a key's passphrase.
constexpr std::array<std::string_view, 4> kSecretParameters = {
    "requirepass", "masterauth", "tls-key-file-pass", "tls-client-key-file-pass"};

// CONFIG GET answers name, value, name, value...: the pairs of secret parameters left out.
void drop_secret_parameters(RespValue& v) {
  if (v.type != RespValue::Type::Array) return;
  std::vector<RespValue> kept;
  for (std::size_t i = 0; i + 1 < v.elements.size(); i += 2)
    if (!secret_config_parameter(v.elements[i].str)) {
      kept.push_back(std::move(v.elements[i]));
      kept.push_back(std::move(v.elements[i + 1]));
    }
  v.elements = std::move(kept);
}

// ACL GETUSER answers field, value, ...: "passwords" (their SHA-256 hashes) becomes empty. ACL
// LIST answers one rule line per user: its "#<hash>" and ">password" rules are left out.
void drop_passwords(RespValue& v, std::vector<std::string>& lines) {
  if (v.type != RespValue::Type::Array) return;
  for (std::size_t i = 0; i + 1 < v.elements.size(); i += 2)
    if (v.elements[i].type == RespValue::Type::Bulk && v.elements[i].str == "passwords") {
      v.elements[i + 1] = RespValue{};
      v.elements[i + 1].type = RespValue::Type::Array;
    }
  lines.reserve(v.elements.size());  // the views below point into these strings
  for (auto& e : v.elements) {
    if (e.type != RespValue::Type::Bulk || !e.str.starts_with("user ")) continue;
    std::string line;
    std::string_view rest = e.str;
    while (!rest.empty()) {
      const std::size_t end = std::min(rest.find(' '), rest.size());
      const std::string_view rule = rest.substr(0, end);
      rest.remove_prefix(std::min(end + 1, rest.size()));
      if (rule.empty() || rule.starts_with('#') || rule.starts_with('>')) continue;
      if (!line.empty()) line += ' ';
      line += rule;
    }
    lines.push_back(std::move(line));
    e.str = lines.back();
  }
}

}  // namespace

bool secret_config_parameter(std::string_view name) {
  const std::string lower = to_lower(name);
  return std::find(kSecretParameters.begin(), kSecretParameters.end(), lower) !=
         kSecretParameters.end();
}

Redact redaction_for(const std::vector<std::string_view>& argv, bool admin) {
  if (argv.empty()) return Redact::None;
  // Called for every command: compared in place, nothing allocated.
  const auto named = [](std::string_view arg, std::string_view upper) {
    return arg.size() == upper.size() &&
           std::equal(arg.begin(), arg.end(), upper.begin(), [](char a, char u) {
             return (a >= 'a' && a <= 'z' ? static_cast<char>(a - 'a' + 'A') : a) == u;
           });
  };
  if (admin) {
    if (argv.size() > 1 && named(argv[0], "CONFIG") && named(argv[1], "GET"))
      return Redact::ConfigGet;
    if (argv.size() > 1 && named(argv[0], "ACL") &&
        (named(argv[1], "GETUSER") || named(argv[1], "LIST")))
      return Redact::Acl;
    return Redact::Scan;
  }
  for (std::string_view script : {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"})
    if (named(argv[0], script)) return Redact::Scan;
  return Redact::None;
}

void redact_reply(Redact what, std::string& reply, std::span<const std::string> secrets) {
  if (what == Redact::None) return;
  if (what == Redact::ConfigGet || what == Redact::Acl) {
    RespValue v;
    std::size_t used = 0;
    if (!parse_reply(reply, v, &used) || used != reply.size()) {
      reply = "-ERR perflab-proxy could not read this reply to check it for secrets\r\n";
      return;
    }
    std::vector<std::string> lines;
    if (what == Redact::ConfigGet)
      drop_secret_parameters(v);
    else
      drop_passwords(v, lines);
    std::string out;
    append_value(out, v);
    reply = std::move(out);
  }
  for (const auto& s : secrets)
    if (!s.empty() && reply.find(s) != std::string::npos) {
      reply = "-ERR perflab-proxy withheld this reply: it holds one of its credentials\r\n";
      return;
    }
}

}  // namespace perflab::proxy
