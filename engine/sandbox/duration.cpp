// SPDX-License-Identifier: MIT
#include "sandbox/duration.h"

namespace Cordon {

Result<std::int64_t> parseDurationMillis(std::string_view text)
{
    // " 30s" from a script's quoting means 30s.
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    const auto notADuration = [text] {
        return fail("cli.invalid_duration",
                    "`" + std::string(text) +
                        "` is not a duration: use a whole number with ms, s, m or h (e.g. "
                        "30s, 5m)");
    };
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    if (digits == 0 || digits > 9)
        return notADuration();
    std::int64_t value = 0;
    for (char c : text.substr(0, digits))
        value = value * 10 + (c - '0');
    const std::string_view unit = text.substr(digits);
    std::int64_t factor = 0;
    if (unit.empty() || unit == "s")
        factor = 1000;
    else if (unit == "ms")
        factor = 1;
    else if (unit == "m")
        factor = 60'000;
    else if (unit == "h")
        factor = 3'600'000;
    else
        return notADuration();
    const std::int64_t millis = value * factor;
    constexpr std::int64_t Week = 7LL * 24 * 3'600'000;
    if (millis <= 0 || millis > Week)
        return fail("cli.invalid_duration",
                    "`" + std::string(text) + "` is out of range: between 1ms and 7 days");
    return millis;
}

Result<int> parseRunTimeoutSeconds(std::string_view text)
{
    const Result<std::int64_t> millis = parseDurationMillis(text);
    if (!millis)
        return fail(millis.error());
    if (*millis % 1000 != 0)
        return fail(
            "cli.invalid_duration",
            "`" + std::string(text) +
                "` is not a whole number of seconds: a run's time limit is counted in seconds, as the "
                "policy's run_timeout_s is (e.g. 1s, 30s, 5m)");
    constexpr std::int64_t MaxSeconds = 86400;
    if (*millis / 1000 > MaxSeconds)
        return fail("cli.invalid_duration", "`" + std::string(text) +
                                                "` is out of range: between 1s and 24h, as the policy's "
                                                "run_timeout_s (1 to 86400)");
    return static_cast<int>(*millis / 1000);
}

} // namespace Cordon
