// SPDX-License-Identifier: MIT
#include "sandbox/policy/orgpolicyfile.h"

#include "sandbox/policy/fields.h"
#include "sandbox/readall.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sys/stat.h>

namespace Cordon::Policy {

std::string orgPolicySystemPath()
{
    const std::string fixed = "/etc/cordon/org-policy.json";
    const char *standIn = std::getenv("CORDON_SYSTEM_ORG_POLICY");
    if (!standIn || standIn[0] != '/' || orgPolicyEntryExists(fixed))
        return fixed;
    return standIn;
}

std::string orgPolicyUserPath()
{
    const char *config = std::getenv("XDG_CONFIG_HOME");
    if (config && config[0] == '/')
        return std::string(config) + "/cordon/org-policy.json";
    const char *home = std::getenv("HOME");
    if (!home || home[0] != '/')
        return {};
    return std::string(home) + "/.config/cordon/org-policy.json";
}

bool orgPolicyEntryExists(const std::string &path)
{
    struct stat info
    {
    };
    return !path.empty() && (::lstat(path.c_str(), &info) == 0 || errno != ENOENT);
}

Result<std::vector<std::string>> readInternalSuffixes(const Json &document)
{
    const Json &list = document["internal_suffixes"];
    std::vector<std::string> suffixes;
    if (list.isUndefined())
        return suffixes;
    CORDON_TRY(Fields::expectArray(list, "internal_suffixes", MaxInternalSuffixes));
    for (std::size_t i = 0; i < list.items().size(); ++i) {
        const std::string where = "internal_suffixes[" + std::to_string(i) + "]";
        auto text = Fields::toString(list.items()[i], where, 253);
        if (!text)
            return fail(text.error());
        std::string suffix = text->starts_with('.') ? text->substr(1) : *text;
        std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        const bool labelsOk =
            !suffix.empty() && !suffix.starts_with('.') && !suffix.ends_with('.') &&
            suffix.find("..") == std::string::npos &&
            suffix.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
        if (!labelsOk)
            return fail("policy.invalid_domain",
                        Fields::at(where, "`" + *text +
                                              "` is not a host-name suffix (labels of letters, digits and "
                                              "hyphens, such as corp.example.com)"));
        if (std::find(suffixes.begin(), suffixes.end(), suffix) == suffixes.end())
            suffixes.push_back(std::move(suffix));
    }
    return suffixes;
}

Result<std::vector<std::string>> loadOrgInternalSuffixes()
{
    std::string path = orgPolicySystemPath();
    if (!orgPolicyEntryExists(path))
        path = orgPolicyUserPath();
    if (!orgPolicyEntryExists(path))
        return std::vector<std::string>{};
    const std::string shown = "organisation allowlist " + path;
    // A FIFO or device where the file should be is refused, never waited on.
    const Result<std::string> bytes =
        readRegularFile(path, DocumentLimits.maxBytes, shown, "network.org_policy_unreadable",
                        "network.org_policy_unreadable", "policy.too_large");
    if (!bytes)
        return fail(bytes.error());
    const auto read = [&bytes]() -> Result<std::vector<std::string>> {
        Result<Json> document = Fields::readDocument(*bytes);
        if (!document)
            return fail(document.error());
        CORDON_TRY(Fields::expectObject(*document, {}));
        return readInternalSuffixes(*document);
    };
    Result<std::vector<std::string>> suffixes = read();
    if (!suffixes)
        return fail(suffixes.error().wrap(path));
    return suffixes;
}

} // namespace Cordon::Policy
