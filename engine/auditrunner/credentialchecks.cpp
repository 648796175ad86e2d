// SPDX-License-Identifier: MIT
#include "auditrunner/credentialchecks.h"

#include "auditrunner/secretforms.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>

namespace Cordon::Audit {

Result<QByteArray> storedStream(ProbeSession &session, const QString &runId, const QString &stream)
{
    QByteArray all;
    qint64 offset = 0;
    for (int page = 0; page < 64; ++page) {
        auto answer = session.call(QStringLiteral("run.output"), {{QStringLiteral("run_id"), runId},
                                                                  {QStringLiteral("stream"), stream},
                                                                  {QStringLiteral("offset"), offset}});
        if (!answer)
            return fail(answer.error());
        all += QByteArray::fromBase64(answer->value(QStringLiteral("data")).toString().toLatin1());
        offset = answer->value(QStringLiteral("next_offset")).toInteger();
        if (answer->value(QStringLiteral("eof")).toBool()) {
            if (all.size() != answer->value(QStringLiteral("total")).toInteger())
                return fail(QStringLiteral("audit.incomplete"),
                            QStringLiteral("run.output gave %1 of %2 bytes")
                                .arg(all.size())
                                .arg(answer->value(QStringLiteral("total")).toInteger()));
            return all;
        }
    }
    return fail(QStringLiteral("audit.incomplete"), QStringLiteral("more than 64 pages of output"));
}

bool containsAny(const QByteArray &haystack, const QStringList &values)
{
    for (const QString &value : values) {
        if (haystack.contains(value.toUtf8()))
            return true;
    }
    return false;
}

void checkNothingShows(RowRecorder &row, ProbeSession &session, const QString &containerId,
                       const QString &runId, const QStringList &values)
{
    const auto out = storedStream(session, runId, QStringLiteral("stdout"));
    const auto err = storedStream(session, runId, QStringLiteral("stderr"));
    row.check(out && err, QStringLiteral("the stored output could be read whole"),
              QStringLiteral("the stored output could not be read whole (%1)")
                  .arg(out && err ? QString() : describe(!out ? out.error() : err.error())));
    const QByteArray streams = (out ? *out : QByteArray()) + (err ? *err : QByteArray());
    row.evidence(QStringLiteral("stored stdout"), excerpt(QString::fromUtf8(out ? *out : QByteArray())));
    row.check(
        !containsAny(streams, values),
        QStringLiteral("the key is absent from the stored stdout and stderr (%1 bytes)").arg(streams.size()),
        QStringLiteral("the key was found in the stored stdout or stderr (%1 bytes)").arg(streams.size()));
    // The masking was exercised, not assumed: what the run printed is there, masked.
    row.check(streams.contains("[secret:"),
              QStringLiteral("the stored output shows the key masked as [secret:NAME]"),
              QStringLiteral("the stored output shows no [secret:NAME] mask: the key was never printed"));

    auto runs = session.call(QStringLiteral("history.runs"), {{QStringLiteral("container"), containerId},
                                                              {QStringLiteral("with_output"), true},
                                                              {QStringLiteral("limit"), 20}});
    auto events = session.events(containerId);
    const QByteArray history = runs ? QJsonDocument(*runs).toJson(QJsonDocument::Compact) : QByteArray();
    const QByteArray eventText =
        events ? QJsonDocument(*events).toJson(QJsonDocument::Compact) : QByteArray();
    row.check(runs && events && !containsAny(history + eventText, values),
              QStringLiteral("the key is absent from the history's runs and its %1 events")
                  .arg(events ? events->size() : 0),
              !runs || !events ? QStringLiteral("the history could not be read (%1)")
                                     .arg(describe(!runs ? runs.error() : events.error()))
                               : QStringLiteral("the key was found in the history's runs or events"));

    QTemporaryDir destination;
    auto download =
        session.call(QStringLiteral("file.download"), {{QStringLiteral("container"), containerId},
                                                       {QStringLiteral("scope"), QStringLiteral("outputs")},
                                                       {QStringLiteral("path"), QString()},
                                                       {QStringLiteral("destination"), destination.path()}});
    row.check(destination.isValid() && download, QStringLiteral("a download of the outputs ran"),
              QStringLiteral("the download of the outputs failed (%1)")
                  .arg(download ? QStringLiteral("no temporary folder") : describe(download.error())));
    if (download) {
        row.evidence(
            QStringLiteral("download"),
            excerpt(QString::fromUtf8(QJsonDocument(*download).toJson(QJsonDocument::Compact)), 600));
    } else {
        row.evidence(QStringLiteral("download"), describe(download.error()));
    }
    QByteArray saved;
    QDirIterator files(destination.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (file.open(QIODevice::ReadOnly))
            saved += file.readAll();
    }
    row.check(!containsAny(saved, values),
              QStringLiteral("the key is absent from what a download of the outputs saved (%1 bytes)")
                  .arg(saved.size()),
              QStringLiteral("the key was found in the downloaded outputs (%1 bytes)").arg(saved.size()));
}

Result<AuditKey> setAuditKey(AuditContext &context, ProbeSession &store, const QString &namePrefix,
                             bool decorated)
{
    const QString name = namePrefix + randomHex(8).toUpper();
    const QString value =
        QStringLiteral("sk-audit-invalid-") + randomHex(32) + (decorated ? distinctFormsSuffix() : QString());
    for (const SecretForm &form : secretForms(value.toUtf8()))
        context.secretValues.append(QString::fromUtf8(form.decided));
    context.secretValues.removeDuplicates();
    // The audit's own test secret: its events stay with the audit, out of the user's timeline.
    auto stored = store.call(QStringLiteral("secret.set"), {{QStringLiteral("name"), name},
                                                            {QStringLiteral("value"), value},
                                                            {QStringLiteral("origin"), store.origin()}});
    if (!stored)
        return fail(stored.error());
    return AuditKey{name, value};
}

} // namespace Cordon::Audit
