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
