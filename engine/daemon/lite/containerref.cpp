// SPDX-License-Identifier: MIT
#include "daemon/lite/containerref.h"

namespace Cordon::Lite {

std::vector<std::size_t> matchContainers(const Json::Array &containers, std::string_view reference)
{
    std::vector<std::size_t> named;
    std::vector<std::size_t> livePrefix;
    std::vector<std::size_t> endedPrefix;
    std::vector<std::size_t> endedNamed;
    for (std::size_t i = 0; i < containers.size(); ++i) {
        const Json &container = containers[i];
        const std::string &id = container["id"].toString();
        if (id == reference)
            return {i};
        const std::string &state = container["state"].toString();
        const bool live = state == "running" || state == "stopped";
        if (container["name"].toString() == reference)
            (live ? named : endedNamed).push_back(i);
        if (std::string_view(id).starts_with(reference))
            (live ? livePrefix : endedPrefix).push_back(i);
    }
    if (!named.empty())
        return named;
    if (!livePrefix.empty())
        return livePrefix;
    if (!endedPrefix.empty())
        return endedPrefix;
    // A name that only ended containers had: the newest of them (the list is newest first), so that the
    // answer is "it expired, and when", not "no such container".
    if (!endedNamed.empty())
        return {endedNamed.front()};
    return {};
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
