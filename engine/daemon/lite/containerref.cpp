// SPDX-License-Identifier: MIT
#include "daemon/lite/containerref.h"

namespace Cordon::Lite {

std::vector<std::size_t> matchContainers(const Json::Array &containers, std::string_view reference)
{
    std::vector<std::size_t> named;
    std::vector<std::size_t> livePrefix;
    std::vector<std::size_t> endedPrefix;
    for (std::size_t i = 0; i < containers.size(); ++i) {
        const Json &container = containers[i];
        const std::string &id = container["id"].toString();
        if (id == reference)
            return {i};
        const std::string &state = container["state"].toString();
        const bool live = state == "running" || state == "stopped";
        if (live && container["name"].toString() == reference)
            named.push_back(i);
        if (std::string_view(id).starts_with(reference))
            (live ? livePrefix : endedPrefix).push_back(i);
    }
    return !named.empty() ? named : !livePrefix.empty() ? livePrefix : endedPrefix;
}

bool isFullContainerId(std::string_view reference)
{
    if (reference.size() != 16)
        return false;
    for (const char c : reference) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

} // namespace Cordon::Lite
