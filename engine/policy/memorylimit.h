// SPDX-License-Identifier: MIT
// Memory limits: four named tiers, like a hosted code interpreter's, or an explicit byte count for tests. The
// rules are policy/core/memorylimit.h's; this words their errors.
#pragma once

#include "core/result.h"
#include "sandbox/memorylimit.h"

#include <QString>

namespace Cordon::Policy {

// As qint64 (long long, where std::int64_t is long), the type Qt's containers and QTest data expect.
constexpr qint64 MiB = Core::MiB;
constexpr qint64 GiB = Core::GiB;
constexpr qint64 MinMemoryLimitBytes = Core::MinMemoryLimitBytes;
constexpr qint64 MaxMemoryLimitBytes = Core::MaxMemoryLimitBytes;

// "1g", "4g", "16g", "64g" (the g in either case), or a decimal byte count in
// [MinMemoryLimitBytes, MaxMemoryLimitBytes]. No signs, spaces, units or fractions: anything else is
// policy.invalid_memory_limit with a message that lists the tiers.
Result<qint64> parseMemoryLimit(const QString &text);
// "must be one of 1g, 4g, 16g, 64g, or a byte count between 67108864 and 68719476736", for messages.
QString memoryLimitRule();
// "1g" for a tier value, otherwise the decimal byte count; parseMemoryLimit reads it back.
QString formatMemoryLimit(qint64 bytes);
// True for exactly 1, 4, 16 and 64 GiB.
bool isMemoryTier(qint64 bytes);

} // namespace Cordon::Policy
