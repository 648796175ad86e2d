// SPDX-License-Identifier: MIT
#include "core/refusalcodes.h"

#include <QStringList>

namespace Cordon {

bool isRefusalCode(QStringView code)
{
    // docs/files.md, "Refusal codes".
    static const QStringList refusals = {
        QStringLiteral("files.symlink"),    QStringLiteral("files.hardlink"),
        QStringLiteral("files.fifo"),       QStringLiteral("files.socket"),
        QStringLiteral("files.device"),     QStringLiteral("files.bad_name"),
        QStringLiteral("files.too_large"),  QStringLiteral("files.too_deep"),
        QStringLiteral("files.too_many"),   QStringLiteral("files.not_regular"),
        QStringLiteral("files.unreadable"), QStringLiteral("files.exists"),
        QStringLiteral("files.blocked")};
    return refusals.contains(code);
}

} // namespace Cordon
