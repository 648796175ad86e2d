// SPDX-License-Identifier: MIT
// Names a container when its policy gives none: two short words ("brisk-heron") that a trainer can read out
// and a developer can type, instead of every container being called the same. Plain C++ on purpose: the
// daemon is its only user today, but nothing here needs Qt.
#pragma once

#include <functional>
#include <string>

namespace Cordon::Containers {

// A readable name for which taken(name) is false: adjective-noun pairs in a random order, then (all 2,000 or
// so taken) the same pairs with a number ("brisk-heron-2"). random(n) returns a value in [0, n); tests pass a
// fixed sequence.
std::string readableContainerName(const std::function<bool(const std::string &)> &taken,
                                  const std::function<unsigned(unsigned)> &random);

// The same with the system's random numbers.
std::string readableContainerName(const std::function<bool(const std::string &)> &taken);

} // namespace Cordon::Containers
