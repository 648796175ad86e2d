// SPDX-License-Identifier: MIT
// cordon doctor: what this host offers for isolation, and an end-to-end check that a sandbox really starts.
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "containers/oneshotrun.h"
#include "isolation/hostprobe.h"

#include <QCommandLineParser>

namespace Cordon::Cli {

int doctorCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Report what this host offers for isolation and what is degraded."));
    parser.addHelpOption();
    if (const auto status = parseCommandLine(parser, arguments, QStringLiteral("cordon doctor")))
        return *status;

    bool essentialMissing = false;
    bool cgroupsOk = true;
    bool appArmorRefuses = false;
    printOut(QStringLiteral("Cordon doctor: what this host offers\n\n"));
    for (const Isolation::HostCheck &check : Isolation::probeHost()) {
        printOut(QStringLiteral("  %1 %2 %3\n")
                     .arg(check.name, -16)
                     .arg(Isolation::checkStatusName(check.status), -9)
                     .arg(check.detail));
        if (check.essential && check.status == Isolation::CheckStatus::Missing &&
            check.name != QLatin1String("cgroups"))
            essentialMissing = true;
        if (check.name == QLatin1String("cgroups") && check.status != Isolation::CheckStatus::Ok)
            cgroupsOk = false;
        if (check.name == QLatin1String("apparmor userns") && check.status == Isolation::CheckStatus::Missing)
            appArmorRefuses = true;
    }

    // The end-to-end check: a real container running /bin/true, with limits when the host has cgroups.
    Containers::OneShotRequest request;
    request.command = {QStringLiteral("/bin/true")};
    request.allowDegraded = !cgroupsOk;
    const Containers::RunOutcome outcome = Containers::runToCompletion(std::move(request));
    const bool ok = outcome.errorClass == Containers::ErrorClass::Ok;
    printOut(
        QStringLiteral("  %1 %2 %3\n")
            .arg(QStringLiteral("sandbox"), -16)
            .arg(ok ? QStringLiteral("ok") : QStringLiteral("missing"), -9)
            .arg(ok ? QStringLiteral("started a container and ran /bin/true in %1 ms%2")
                          .arg(outcome.wallMs)
                          .arg(outcome.degraded ? QStringLiteral(" (degraded: no cgroup limits)") : QString())
                    : outcome.message));
    printOut(QStringLiteral("\n%1\n").arg(
        // The sandbox line then fails too, at a setup step far from the cause.
        appArmorRefuses
            ? QStringLiteral("Cordon cannot isolate runs on this host: AppArmor keeps it from using user "
                             "namespaces (`apparmor userns` above names the fix).")
        : !ok || essentialMissing
            ? QStringLiteral("Cordon cannot isolate runs on this host: see the lines above.")
        : !cgroupsOk
            ? QStringLiteral("Cordon can isolate runs, but memory and pids limits need cgroups (see above).")
            : QStringLiteral("Everything Cordon needs is available.")));
    return ok && !essentialMissing ? 0 : 1;
}

} // namespace Cordon::Cli
