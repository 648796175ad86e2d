// SPDX-License-Identifier: MIT
// cordon inspect ID: one container in detail: state, times, limits, policy and the processes inside.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/policywords.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace Cordon::Cli {

namespace {

QString field(const QString &label, const QString &value)
{
    return QStringLiteral("%1 %2\n").arg(label + QLatin1Char(':'), -14).arg(value);
}

QString describe(const QJsonObject &container, const QJsonArray &processes)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString state = container.value(QStringLiteral("state")).toString();
    const QJsonObject policy = container.value(QStringLiteral("policy")).toObject();
    const int idleMinutes =
        policy.value(QStringLiteral("expires_after")).toObject().value(QStringLiteral("minutes")).toInt();
    const double timeScale = container.value(QStringLiteral("time_scale")).toDouble(1);
    QString text = field(QStringLiteral("ID"), container.value(QStringLiteral("id")).toString());
    text += field(QStringLiteral("Name"), container.value(QStringLiteral("name")).toString());
    text += field(QStringLiteral("State"), state);
    text += field(QStringLiteral("Created"),
                  formatTime(container.value(QStringLiteral("created_at")).toInteger()));
    text += field(QStringLiteral("Last active"),
                  formatTime(container.value(QStringLiteral("last_active_at")).toInteger()));
    QString idle =
        QStringLiteral("after %1 idle")
            .arg(idleMinutes < 60 || idleMinutes % 60 != 0 ? QStringLiteral("%1 min").arg(idleMinutes)
                                                           : QStringLiteral("%1 h").arg(idleMinutes / 60));
    if (timeScale != 1)
        idle += QStringLiteral(", on a clock running %1x faster").arg(timeScale);
    if (state == QLatin1String("running") || state == QLatin1String("stopped"))
        text += field(QStringLiteral("Expires"),
                      QStringLiteral("in %1 (%2)").arg(describeExpiry(container, now), idle));
    else
        text +=
            field(state == QLatin1String("expired") ? QStringLiteral("Expired") : QStringLiteral("Deleted"),
                  QStringLiteral("%1 (files removed)")
                      .arg(formatTime(container.value(QStringLiteral("ended_at")).toInteger())));
    text += field(QStringLiteral("Active runs"),
                  QString::number(container.value(QStringLiteral("active_runs")).toInt()));
    // Files are memory: what they hold, beside the limit they count toward.
    if (container.contains(QStringLiteral("workspace_bytes")))
        text += field(QStringLiteral("Files"),
                      QStringLiteral("%1 in /mnt/data, counted in its %2 memory limit")
                          .arg(formatBytes(container.value(QStringLiteral("workspace_bytes")).toInteger()),
                               formatBytes(container.value(QStringLiteral("memory_limit")).toInteger())));
    // Every limit in words (the workbench's Inspect view prints the same lines), then the policy itself.
    const bool enforced = container.value(QStringLiteral("limits_enforced")).toBool(true);
    text += QStringLiteral("Policy %1, in words:\n")
                .arg(container.value(QStringLiteral("policy_version")).toString().left(12));
    for (const PolicyWords::Line &line : PolicyWords::policy(policy)) {
        QString words = line.text;
        if (!enforced && (line.label == QLatin1String("Memory") || line.label == QLatin1String("Processes")))
            words += QStringLiteral(" (not enforced: the daemon runs in degraded mode)");
        text += QStringLiteral("  %1 %2%3\n")
                    .arg(line.label + QLatin1Char(':'), -13)
                    .arg(line.warning ? QStringLiteral("(!) ") : QString(), escapeName(words));
    }
    text += QStringLiteral("Policy %1:\n%2")
                .arg(container.value(QStringLiteral("policy_version")).toString(),
                     QString::fromUtf8(QJsonDocument(policy).toJson(QJsonDocument::Indented)));
    if (!processes.isEmpty()) {
        Table table({QStringLiteral("  PID"), QStringLiteral("RSS"), QStringLiteral("COMMAND")});
        for (const QJsonValue &value : processes) {
            const QJsonObject process = value.toObject();
            table.addRow({QStringLiteral("  %1").arg(process.value(QStringLiteral("pid")).toInteger()),
                          formatBytes(process.value(QStringLiteral("rss_bytes")).toInteger()),
                          escapeName(process.value(QStringLiteral("command")).toString())});
        }
        text += QStringLiteral("Processes:\n") + table.toString();
    }
    return text;
}

} // namespace

int inspectCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon inspect");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Show one container: state, times, expiry, memory limit, policy and the processes running inside.\n"
        "ID is a container id, a unique prefix of one, or the name of a running or stopped container."));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the daemon's result (the container) as JSON."));
    parser.addOption(jsonOption);
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The container."),
                                 QStringLiteral("ID"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (parser.positionalArguments().size() != 1)
        return usageError(command, QStringLiteral("give exactly one container id"));

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto id = session.resolveContainerId(parser.positionalArguments().first());
    if (!id)
        return reportError(id.error());
    auto found = session.call(QStringLiteral("container.get"), {{QStringLiteral("id"), *id}});
    if (!found)
        return reportError(found.error());
    if (parser.isSet(jsonOption)) {
        printJson(*found);
        return 0;
    }
    const QJsonObject container = found->value(QStringLiteral("container")).toObject();
    QJsonArray processes;
    if (container.value(QStringLiteral("state")).toString() == QLatin1String("running")) {
        // Best effort: the list is a courtesy, and the container may stop between the two calls.
        if (auto listed =
                session.call(QStringLiteral("memory.processes"), {{QStringLiteral("container"), *id}}))
            processes = listed->value(QStringLiteral("processes")).toArray();
    }
    printOut(describe(container, processes));
    return 0;
}

} // namespace Cordon::Cli
