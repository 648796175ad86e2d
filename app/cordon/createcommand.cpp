// SPDX-License-Identifier: MIT
// cordon create: a long-lived container held by cordond. Prints its id, like `docker create`.
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"
#include "policyfile.h"

#include "core/plainbridge.h"
#include "sandbox/duration.h"
#include "sandbox/policy/containerpolicy.h"

#include <QFile>
#include <QRegularExpression>

namespace Cordon::Cli {

namespace {

// The policy counts idle time in whole minutes; "20m", "2h", "1d" and "90m" are accepted, "90s" is not.
Result<int> parseIdleMinutes(const QString &text)
{
    static const QRegularExpression days(QStringLiteral("^([0-9]{1,3})d$"));
    qint64 minutes = 0;
    if (const QRegularExpressionMatch match = days.match(text.trimmed()); match.hasMatch()) {
        minutes = match.captured(1).toLongLong() * 1440;
    } else {
        auto millis = parseDurationMillis(toPlain(text));
        if (!millis)
            return fail(millis.error());
        if (*millis % 60000 != 0)
            return fail(QStringLiteral("cli.invalid_duration"),
                        QStringLiteral("`%1` is not a whole number of minutes (e.g. 20m, 2h, 1d)").arg(text));
        minutes = *millis / 60000;
    }
    if (minutes < 1 || minutes > 10080)
        return fail(QStringLiteral("cli.invalid_duration"),
                    QStringLiteral("`%1` is out of range: between 1m and 7d").arg(text));
    return static_cast<int>(minutes);
}

} // namespace

int createCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon create");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Create a long-lived container and start it. Files in /mnt/data and background processes stay\n"
        "between `cordon exec` runs; the container expires (and its files are removed) after it has been\n"
        "idle for the policy's expires_after.minutes (default 20m). Prints the container's id."));
    parser.addHelpOption();
    const QCommandLineOption policyOption(QStringLiteral("policy"),
                                          QStringLiteral("Container policy JSON file (docs/policy.md)."),
                                          QStringLiteral("file"));
    const QCommandLineOption nameOption(
        QStringLiteral("name"),
        QStringLiteral(
            "Name (1-64 of A-Z a-z 0-9 . _ -), unique among your containers; overrides the policy. "
            "Without one, a readable name such as brisk-heron is chosen."),
        QStringLiteral("name"));
    const QCommandLineOption memoryOption(
        QStringLiteral("memory"),
        QStringLiteral("Memory limit: 1g, 4g, 16g, 64g or bytes; overrides the policy."),
        QStringLiteral("tier"));
    const QCommandLineOption idleOption(
        QStringLiteral("idle"),
        QStringLiteral("Expire after this long without activity: 20m, 2h, 1d (whole minutes, up to 7d)."),
        QStringLiteral("duration"));
    const QCommandLineOption demoOption(
        QStringLiteral("demo"),
        QStringLiteral(
            "A demo container: it follows the demo clock (cordon daemon time-scale); others never do."));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the daemon's result (the container) as JSON."));
    parser.addOptions({policyOption, nameOption, memoryOption, idleOption, demoOption, jsonOption});
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));

    bool fileGivesName = false;
    auto policy = loadPolicyFile(parser.value(policyOption), &fileGivesName);
    if (!policy) {
        printError(policy.error());
        return UsageError;
    }
    if (parser.isSet(nameOption))
        policy->name = toPlain(parser.value(nameOption));
    if (parser.isSet(memoryOption)) {
        auto memory = Policy::parseMemoryLimit(toPlain(parser.value(memoryOption)));
        if (!memory) {
            printError(memory.error().wrap("--memory"));
            return UsageError;
        }
        policy->setMemoryLimit(*memory);
    }
    if (parser.isSet(idleOption)) {
        auto minutes = parseIdleMinutes(parser.value(idleOption));
        if (!minutes) {
            printError(minutes.error().wrap("--idle"));
            return UsageError;
        }
        policy->expiresAfter.minutes = *minutes;
    }
    // The overrides go through the same checks as a policy file, before the daemon is bothered.
    auto checked = policy->validated();
    if (!checked) {
        printError(checked.error());
        return UsageError;
    }

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    QJsonObject policyObject = toQt(checked->toJson()).toObject();
    // No name given: the daemon chooses a readable one that no other container has.
    if (!fileGivesName && !parser.isSet(nameOption))
        policyObject.remove(QStringLiteral("name"));
    QJsonObject params{{QStringLiteral("policy"), policyObject}};
    if (parser.isSet(demoOption))
        params.insert(QStringLiteral("demo"), true);
    auto created = session.call(QStringLiteral("container.create"), params);
    if (!created)
        return reportError(created.error());
    if (parser.isSet(jsonOption))
        printJson(*created);
    else
        printOut(
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString() +
            QLatin1Char('\n'));
    return 0;
}

} // namespace Cordon::Cli
