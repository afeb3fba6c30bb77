#pragma once
// What a reply may never show a client, whatever the command policy: the proxy's own
// credentials (its backend password, its client password) and the nodes' secrets that
// administrative commands read (CONFIG GET requirepass, ACL GETUSER's password hashes).
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perflab::proxy {

enum class Redact {
  None,       // forwarded as is (the data commands: a value is the user's own)
  Scan,       // withheld when it holds a credential (other admin commands, scripts)
  ConfigGet,  // CONFIG GET: secret-bearing parameters left out, then Scan
  Acl,        // ACL GETUSER / LIST: passwords and their hashes left out, then Scan
};

// What to redact in the reply to argv (admin: an administrative command of the policy).
Redact redaction_for(const std::vector<std::string_view>& argv, bool admin);

// True for a CONFIG parameter whose value is a secret (requirepass, masterauth, the TLS key
// passphrases).
bool secret_config_parameter(std::string_view name);

// Rewrites one complete RESP2 reply as `what` says. A reply that still holds one of `secrets`
// (non-empty strings) anywhere, or that cannot be read, becomes an error reply.
void redact_reply(Redact what, std::string& reply, std::span<const std::string> secrets);

}  // namespace perflab::proxy
