// SPDX-License-Identifier: MIT
// What this host offers for isolation, for `cordon doctor`: each check says ok, degraded or missing, and in
// words what a user can do about it. Checks never change the host.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

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

// What creating a user namespace the way a container start needs it showed.
struct UsernsProbe
{
    bool created = false; // clone(CLONE_NEWUSER | CLONE_NEWUTS) succeeded
    bool usable =
        false;     // ... and the child had its capabilities there (sethostname in the new UTS namespace)
    int error = 0; // errno of the step that failed
};

// How this copy of Cordon can be let through an AppArmor restriction of user namespaces.
struct AppArmorFix
{
    QString shippedProfile; // an installed copy: the configured profile it ships, else empty
    QStringList programs;   // cordon, cordond and cordon-cli of this copy, for a profile of its own
};

struct UsernsFacts
{
    // /proc/sys/kernel/apparmor_restrict_unprivileged_userns: "1\n" where AppArmor restricts unprivileged
    // user namespaces (Ubuntu 23.10 and later); absent (nullopt) without AppArmor or on older kernels.
    std::optional<QByteArray> apparmorRestriction;
    QString maxUserNamespaces; // /proc/sys/user/max_user_namespaces, for the report
    UsernsProbe probe;
    bool root = false; // the restriction does not cover root, so root's probe proves nothing for users
    AppArmorFix fix;
};

// Doctor's decision about user namespaces, from facts alone: the `user namespaces` check and, where AppArmor
// restricts them, an `apparmor userns` check that says whether that is what stops Cordon and names the fix.
QList<HostCheck> judgeUserNamespaces(const UsernsFacts &facts);

} // namespace Cordon::Isolation
