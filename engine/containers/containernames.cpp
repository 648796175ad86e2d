// SPDX-License-Identifier: MIT
#include "containers/containernames.h"

#include <array>
#include <random>
#include <string_view>

namespace Cordon::Containers {

namespace {

// Short, distinct, easy to say and to spell; nothing that reads as a state ("dead", "broken") or a verdict.
constexpr std::array<std::string_view, 48> Adjectives = {
    "amber", "bold",   "brisk",  "calm",   "clever", "cosy",  "crisp",  "deft",  "eager",  "fair",
    "fancy", "fleet",  "gentle", "glad",   "golden", "grand", "happy",  "hardy", "jolly",  "keen",
    "kind",  "lively", "lucid",  "lucky",  "mellow", "merry", "mighty", "misty", "modest", "nimble",
    "noble", "plucky", "polite", "proud",  "quick",  "quiet", "rapid",  "ready", "rosy",   "sharp",
    "shiny", "snowy",  "spry",   "steady", "sunny",  "swift", "tidy",   "witty"};

constexpr std::array<std::string_view, 48> Nouns = {
    "badger", "beaver", "bison",  "crane",   "dingo",  "dolphin", "eagle",  "falcon", "ferret", "finch",
    "gecko",  "heron",  "ibis",   "jackal",  "koala",  "lemur",   "lynx",   "marten", "marmot", "moose",
    "newt",   "ocelot", "osprey", "otter",   "panda",  "pelican", "puffin", "quail",  "raven",  "robin",
    "salmon", "seal",   "shrew",  "sparrow", "stoat",  "swan",    "tapir",  "tern",   "toucan", "trout",
    "turtle", "vole",   "walrus", "weasel",  "wombat", "wren",    "yak",    "zebra"};

constexpr unsigned PairCount = Adjectives.size() * Nouns.size();

std::string pairName(unsigned index)
{
    return std::string(Adjectives[index / Nouns.size()]) + '-' + std::string(Nouns[index % Nouns.size()]);
}

} // namespace

std::string readableContainerName(const std::function<bool(const std::string &)> &taken,
                                  const std::function<unsigned(unsigned)> &random)
{
    // A random start and a stride coprime with the pair count visit every pair once, in an order that does
    // not look sequential, without keeping a list of those tried.
    const unsigned start = random(PairCount);
    constexpr unsigned Stride = 1543; // prime, and PairCount (2304) = 2^8 * 3^2 has no factor in common
    for (unsigned suffix = 1;; ++suffix) {
        for (unsigned step = 0; step < PairCount; ++step) {
            std::string name = pairName((start + step * Stride) % PairCount);
            if (suffix > 1)
                name += '-' + std::to_string(suffix);
            if (!taken(name))
                return name;
        }
    }
}

std::string readableContainerName(const std::function<bool(const std::string &)> &taken)
{
    static thread_local std::mt19937 generator{std::random_device{}()};
    return readableContainerName(taken, [](unsigned bound) {
        return std::uniform_int_distribution<unsigned>(0, bound - 1)(generator);
    });
}

} // namespace Cordon::Containers
