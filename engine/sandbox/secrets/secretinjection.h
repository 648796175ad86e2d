// SPDX-License-Identifier: MIT
// A run's secrets, from the policy's names to the values it receives (docs/secrets.md): looked up in the
// store at run start, put in the run's environment, and masked in everything the run's output becomes.
#pragma once

#include "sandbox/error.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/secrets/secretmasker.h"
#include "sandbox/secrets/secretstore.h"

#include <string>
#include <vector>

namespace Cordon::Secrets {

struct ResolvedSecret
{
    std::string name;
    std::string env;
    std::string value;
    std::string fingerprint; // SecretStore::fingerprint(value)
    // A domain secret: `value` is its placeholder (what the run receives), `fingerprint` is the real value's,
    // and these are where the proxy may send the real value.
    std::vector<std::string> domains;
};

// Each of the policy's secrets with its value now. secrets.not_found names the first one the store lacks and
// the command that sets it.
Result<std::vector<ResolvedSecret>> resolveSecrets(const SecretStore &store,
                                                   const std::vector<Policy::SecretRef> &refs);

// policy.secret_in_env when an `env` value is a stored secret's value: in `env` it would be kept in the
// policy and the history in plain text, and masked nowhere; `secrets` gives it to the runs instead. Compared
// by fingerprint, so that no value leaves the store (or the keyring), and the value is never repeated. The
// one check of both `cordon create` (the daemon) and `cordon run` (the launcher).
Result<> checkNoSecretInEnv(const SecretStore &store, const Policy::ContainerPolicy &policy);

// Sets each secret's variable in `env` ("NAME=value" entries), replacing an entry of the same name.
void injectSecrets(std::vector<std::string> &env, const std::vector<ResolvedSecret> &secrets);

// A masker for the values (SecretMasker::add never fails for values the store accepted).
SecretMasker maskerFor(const std::vector<ResolvedSecret> &secrets);

} // namespace Cordon::Secrets
