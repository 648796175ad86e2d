// SPDX-License-Identifier: MIT
#include "sandbox/policy/policyfile.h"

#include "sandbox/readall.h"

namespace Cordon::Policy {

Result<Json> readPolicyFile(const std::string &path)
{
    const std::string what = "policy `" + path + "`";
    Result<std::string> bytes = readRegularFile(path, MaxPolicyFileBytes, what, "cli.policy_unreadable",
                                                "cli.read", "policy.too_large");
    if (!bytes)
        return fail(bytes.error());
    Result<Json> document = Fields::readDocument(*bytes);
    if (!document)
        return fail(document.error().wrap(what));
    return document;
}

} // namespace Cordon::Policy
