// SPDX-License-Identifier: MIT
// cordon doctor: what this host offers for isolation, and an end-to-end check that a sandbox really starts.
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "containers/oneshotrun.h"
#include "isolation/hostprobe.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>

namespace Cordon::Cli {

int doctorCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Report what this host offers for isolation and what is degraded."));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(
        QStringLiteral("json"),
        QStringLiteral("Print the checks, the sandbox test and the verdict as one JSON object."));
    parser.addOption(jsonOption);
    if (const auto status = parseCommandLine(parser, arguments, QStringLiteral("cordon doctor")))
        return *status;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            QStringLiteral("cordon doctor"),
            QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));

    bool essentialMissing = false;
    bool cgroupsOk = true;
    bool appArmorRefuses = false;
    QJsonArray checks;
    for (const Isolation::HostCheck &check : Isolation::probeHost()) {
        checks.append(QJsonObject{{QStringLiteral("name"), check.name},
                                  {QStringLiteral("status"), Isolation::checkStatusName(check.status)},
                                  {QStringLiteral("essential"), check.essential},
                                  {QStringLiteral("detail"), check.detail}});
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
    checks.append(QJsonObject{
        {QStringLiteral("name"), QStringLiteral("sandbox")},
        {QStringLiteral("status"), ok ? QStringLiteral("ok") : QStringLiteral("missing")},
        {QStringLiteral("essential"), true},
        {QStringLiteral("detail"),
         ok ? QStringLiteral("started a container and ran /bin/true in %1 ms%2")
                  .arg(outcome.wallMs)
                  .arg(outcome.degraded ? QStringLiteral(" (degraded: no cgroup limits)") : QString())
            : outcome.message}});
    // The sandbox line fails too when AppArmor refuses, at a setup step far from the cause.
    const QString verdict =
        appArmorRefuses
            ? QStringLiteral("Cordon cannot isolate runs on this host: AppArmor keeps it from using "
                             "user namespaces (`apparmor userns` above names the fix).")
        : !ok || essentialMissing
            ? QStringLiteral("Cordon cannot isolate runs on this host: see the lines above.")
        : !cgroupsOk
            ? QStringLiteral("Cordon can isolate runs, but memory and pids limits need cgroups (see above).")
            : QStringLiteral("Everything Cordon needs is available.");
    const bool usable = ok && !essentialMissing;
    if (parser.isSet(jsonOption)) {
        printJson(QJsonObject{{QStringLiteral("checks"), checks},
                              {QStringLiteral("usable"), usable},
                              {QStringLiteral("limits_enforced"), ok && cgroupsOk},
                              {QStringLiteral("verdict"), verdict}});
        return usable ? 0 : 1;
    }
    QString text = QStringLiteral("Cordon doctor: what this host offers\n\n");
    for (const QJsonValue &value : std::as_const(checks)) {
        const QJsonObject check = value.toObject();
        text += QStringLiteral("  %1 %2 %3\n")
                    .arg(check.value(QStringLiteral("name")).toString(), -16)
                    .arg(check.value(QStringLiteral("status")).toString(), -9)
                    .arg(check.value(QStringLiteral("detail")).toString());
    }
    printOut(text + QStringLiteral("\n%1\n").arg(verdict));
    return usable ? 0 : 1;
}

} // namespace Cordon::Cli
