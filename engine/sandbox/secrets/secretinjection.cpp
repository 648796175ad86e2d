// SPDX-License-Identifier: MIT
#include "sandbox/secrets/secretinjection.h"

#include <algorithm>

namespace Cordon::Secrets {

Result<std::vector<ResolvedSecret>> resolveSecrets(const SecretStore &store,
                                                   const std::vector<Policy::SecretRef> &refs)
{
    std::vector<ResolvedSecret> resolved;
    for (const Policy::SecretRef &ref : refs) {
        Result<std::string> value = store.value(ref.name);
        if (!value)
            return fail(value.error());
        const std::string fingerprint = store.fingerprint(*value);
        resolved.push_back(ResolvedSecret{ref.name, ref.env, std::move(*value), fingerprint, {}});
    }
    return resolved;
}

Result<> checkNoSecretInEnv(const SecretStore &store, const Policy::ContainerPolicy &policy)
{
    for (const auto &[variable, text] : policy.env) {
        const std::string held = store.fingerprint(text);
        for (const StoredSecret &stored : store.list()) {
            if (held == stored.fingerprint)
                return fail(
                    "policy.secret_in_env",
                    "env." + variable + ": holds the value of the stored secret " + stored.name +
                        " in plain text, which the policy and the history would keep unmasked; name it "
                        "in `secrets` instead: \"secrets\": [{\"name\": \"" +
                        stored.name + "\", \"env\": \"" + variable + "\"}]");
        }
    }
    return {};
}

void injectSecrets(std::vector<std::string> &env, const std::vector<ResolvedSecret> &secrets)
{
    for (const ResolvedSecret &secret : secrets) {
        const std::string prefix = secret.env + '=';
        std::erase_if(env, [&prefix](const std::string &entry) { return entry.starts_with(prefix); });
        env.push_back(prefix + secret.value);
    }
}

SecretMasker maskerFor(const std::vector<ResolvedSecret> &secrets)
{
    SecretMasker masker;
    for (const ResolvedSecret &secret : secrets)
        (void)masker.add(secret.name, secret.value);
    return masker;
}

} // namespace Cordon::Secrets
