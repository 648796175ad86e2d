// SPDX-License-Identifier: MIT
// What this host offers for isolation, for `cordon doctor`: each check says ok, degraded or missing, and in
// words what a user can do about it. Checks never change the host.
#pragma once

#include <QList>
#include <QString>

namespace Cordon::Isolation {

enum class CheckStatus
{
    Ok,
    Degraded,
    Missing
};

struct HostCheck
{
    QString name;
    CheckStatus status = CheckStatus::Missing;
    QString detail;
    bool essential = true; // a missing essential check means `cordon run` cannot work
};

QList<HostCheck> probeHost();
QString checkStatusName(CheckStatus status);

} // namespace Cordon::Isolation
