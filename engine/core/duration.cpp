// SPDX-License-Identifier: MIT
#include "core/duration.h"

#include "sandbox/duration.h"

namespace Cordon {

Result<qint64> parseDuration(const QString &text)
{
    return fromPlain(Plain::parseDurationMillis(text.trimmed().toStdString()));
}

} // namespace Cordon
