// SPDX-License-Identifier: MIT
// The logs row: every run and event of the audit's containers names its run, its container, the policy
// version and its times, and none holds a secret.
#include "auditrunner/auditrows.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace Cordon::Audit {

AuditRow logsAttribution(AuditContext &context)
{
    RowRecorder row(
        QStringLiteral("logs.attribution"),
        QStringLiteral("Every record names its run, container, policy and times, without secrets"));
    ProbeSession &session = context.session;
    const QString mainVersion = context.mainRecord.value(QStringLiteral("policy_version")).toString();
    int runCount = 0;
    int eventCount = 0;
    for (const QString &containerId : session.containers()) {
        auto container = session.call(QStringLiteral("container.get"), {{QStringLiteral("id"), containerId}});
        auto runs = session.call(QStringLiteral("history.runs"), {{QStringLiteral("container"), containerId},
                                                                  {QStringLiteral("limit"), 500}});
        auto events = session.events(containerId);
        if (!container || !runs || !events)
            return row.noGo(QStringLiteral("the history of %1 could not be read").arg(containerId));
        const QString version = container->value(QStringLiteral("container"))
                                    .toObject()
                                    .value(QStringLiteral("policy_version"))
                                    .toString();
        if (containerId == context.mainContainer)
            row.check(
                version == mainVersion && !version.isEmpty(),
                QStringLiteral("the container under test runs the policy version %1 (the audited policy, "
                               "renamed)")
                    .arg(version),
                QStringLiteral("the container under test names the policy version %1, not %2")
                    .arg(version, mainVersion));
        for (const QJsonValue &value : runs->value(QStringLiteral("runs")).toArray()) {
            const QJsonObject run = value.toObject();
            ++runCount;
            const bool attributed = !run.value(QStringLiteral("id")).toString().isEmpty() &&
                                    run.value(QStringLiteral("container")).toString() == containerId &&
                                    run.value(QStringLiteral("policy_version")).toString() == version &&
                                    run.value(QStringLiteral("started_at")).toInteger() > 0 &&
                                    run.value(QStringLiteral("ended_at")).toInteger() >=
                                        run.value(QStringLiteral("started_at")).toInteger() &&
                                    !run.value(QStringLiteral("error_class")).toString().isEmpty();
            if (!attributed)
                row.fail(QStringLiteral("run %1 lacks its id, container, policy version, times or error "
                                        "class")
                             .arg(run.value(QStringLiteral("id")).toString()));
        }
        for (const QJsonValue &value : *events) {
            const QJsonObject event = value.toObject();
            ++eventCount;
            const QString kind = event.value(QStringLiteral("kind")).toString();
            const bool attributed = event.value(QStringLiteral("container")).toString() == containerId &&
                                    event.value(QStringLiteral("at")).toInteger() > 0 &&
                                    (!kind.startsWith(QStringLiteral("run.")) ||
                                     !event.value(QStringLiteral("run_id")).toString().isEmpty());
            if (!attributed)
                row.fail(QStringLiteral("event %1 (%2) lacks its container, run or time")
                             .arg(event.value(QStringLiteral("id")).toInteger())
                             .arg(kind));
        }
        const QByteArray text = QJsonDocument(*runs).toJson(QJsonDocument::Compact) +
                                QJsonDocument(*events).toJson(QJsonDocument::Compact);
        for (const QString &secret : std::as_const(context.secretValues)) {
            if (text.contains(secret.toUtf8()))
                row.fail(QStringLiteral("the history of %1 holds one of the audit's keys").arg(containerId));
        }
    }
    row.check(runCount > 0 && eventCount > 0,
              QStringLiteral("%1 runs and %2 events of %3 containers carry their ids and times")
                  .arg(runCount)
                  .arg(eventCount)
                  .arg(session.containers().size()),
              QStringLiteral("the history holds %1 runs and %2 events of the audit's containers: nothing to "
                             "attribute")
                  .arg(runCount)
                  .arg(eventCount));
    row.check(
        !context.secretValues.isEmpty(),
        QStringLiteral("none holds any of the %1 forms of the audit's keys").arg(context.secretValues.size()),
        QStringLiteral("the audit set no key of its own, so the absence of keys shows nothing"));
    return row.finish(QStringLiteral("the history attributes everything the audit did, and holds no secret"));
}

} // namespace Cordon::Audit
