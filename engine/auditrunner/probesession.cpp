// SPDX-License-Identifier: MIT
#include "auditrunner/probesession.h"

#include "audit/runevidence.h"
#include "core/plainbridge.h"

#include <QFileInfo>
#include <QJsonDocument>

namespace Cordon::Audit {

namespace {

constexpr const char *InsideProbe = "/tmp/cordon-audit-probe";
constexpr const char *UploadedProbe = "/mnt/data/inputs/cordon-audit-probe";

} // namespace

RowRecorder::RowRecorder(QString id, QString title) : m_id(std::move(id)), m_title(std::move(title))
{
    m_clock.start();
}

void RowRecorder::evidence(const QString &label, const QString &text)
{
    m_evidence.push_back({toPlain(label), toPlain(text)});
}

void RowRecorder::runEvidence(const QString &what, const QJsonObject &run)
{
    // The run in the format the History's run export uses too (audit/runevidence.h).
    evidence(QStringLiteral("step"), what);
    for (Evidence &piece : evidenceOfRun(toPlain(run)))
        m_evidence.push_back(std::move(piece));
}

void RowRecorder::check(bool held, const QString &claim, const QString &failure)
{
    evidence(held ? QStringLiteral("held") : QStringLiteral("failed"), held ? claim : failure);
    if (!held && m_failed.isEmpty())
        m_failed = failure;
}

AuditRow RowRecorder::finish(const QString &reason)
{
    return m_failed.isEmpty() ? make(Verdict::Go, reason) : make(Verdict::NoGo, m_failed);
}

AuditRow RowRecorder::noGo(const QString &reason)
{
    return make(Verdict::NoGo, reason);
}

AuditRow RowRecorder::notApplicable(const QString &reason)
{
    return make(Verdict::NotApplicable, reason);
}

AuditRow RowRecorder::make(Verdict verdict, const QString &reason)
{
    AuditRow row;
    row.id = toPlain(m_id);
    row.title = toPlain(m_title);
    row.verdict = verdict;
    row.reason = toPlain(reason);
    row.durationMs = m_clock.elapsed();
    row.evidence = m_evidence;
    return row;
}

QString excerpt(const QString &text, int limit)
{
    QString shown;
    for (const QChar c : text) {
        if (shown.size() >= limit) {
            shown += QStringLiteral("... (cut)");
            break;
        }
        if ((c.unicode() < 0x20 && c != QLatin1Char('\n')) || c.unicode() == 0x7f)
            shown += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            shown += c;
    }
    return shown;
}

QString probeValue(const QString &stdoutText, const QString &key)
{
    const QString prefix = key + QStringLiteral(": ");
    for (const QString &line : stdoutText.split(QLatin1Char('\n'))) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed();
    }
    return {};
}

ProbeSession::ProbeSession(Daemon::DaemonClient &client, QString probeProgram, QString origin)
    : m_client(client), m_probeProgram(std::move(probeProgram)), m_origin(std::move(origin))
{}

Result<QJsonObject> ProbeSession::call(const QString &method, const QJsonObject &params, int timeoutMs)
{
    return m_client.callSync(method, params, timeoutMs);
}

Result<QString> ProbeSession::createContainer(const QJsonObject &policy)
{
    auto created = call(QStringLiteral("container.create"),
                        {{QStringLiteral("policy"), policy}, {QStringLiteral("origin"), m_origin}});
    if (!created)
        return fail(created.error());
    const QString id =
        created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    m_containers.append(id);
    auto uploaded =
        call(QStringLiteral("file.upload"), {{QStringLiteral("container"), id},
                                             {QStringLiteral("name"), QStringLiteral("cordon-audit-probe")},
                                             {QStringLiteral("path"), m_probeProgram}});
    if (!uploaded)
        return fail(uploaded.error().wrap("upload the audit probe"));
    return id;
}

QJsonArray ProbeSession::probeCommand(const QStringList &args)
{
    // Uploads are plain files (0644): the probe is copied to /tmp, which allows exec, once per container.
    QJsonArray command{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                       QStringLiteral("[ -x %1 ] || install -m 0755 %2 %1 || exit 125; exec %1 \"$@\"")
                           .arg(QLatin1String(InsideProbe), QLatin1String(UploadedProbe)),
                       QStringLiteral("cordon-audit-probe")};
    for (const QString &arg : args)
        command.append(arg);
    return command;
}

QString ProbeSession::shownCommand(const QStringList &args)
{
    return QStringLiteral("cordon-audit-probe ") + args.join(QLatin1Char(' '));
}

QString ProbeSession::observed(const QStringList &args, const QString &answer, const QJsonObject &run)
{
    return QStringLiteral("%1 -> %2 (run %3)")
        .arg(shownCommand(args), answer, run.value(QStringLiteral("id")).toString());
}

Result<QJsonObject> ProbeSession::startProbe(const QString &containerId, const QStringList &args,
                                             int timeoutS, const QString &idempotencyKey)
{
    QJsonObject params{{QStringLiteral("container"), containerId},
                       {QStringLiteral("command"), probeCommand(args)}};
    if (timeoutS > 0)
        params.insert(QStringLiteral("timeout_s"), timeoutS);
    if (!idempotencyKey.isEmpty())
        params.insert(QStringLiteral("idempotency_key"), idempotencyKey);
    auto started = call(QStringLiteral("run.exec"), params);
    if (!started)
        return fail(started.error());
    return started->value(QStringLiteral("run")).toObject();
}

Result<QJsonObject> ProbeSession::wait(const QString &runId, int timeoutMs)
{
    auto finished = call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}}, timeoutMs);
    if (!finished)
        return fail(finished.error());
    return finished->value(QStringLiteral("run")).toObject();
}

Result<QJsonObject> ProbeSession::probe(const QString &containerId, const QStringList &args, int timeoutS,
                                        const QString &idempotencyKey)
{
    auto started = startProbe(containerId, args, timeoutS, idempotencyKey);
    if (!started)
        return fail(started.error());
    // The daemon ends the run at its timeout; the wait only needs to outlast it.
    const int waitMs = (timeoutS > 0 ? timeoutS : 3600) * 1000 + 30000;
    return wait(started->value(QStringLiteral("id")).toString(), waitMs);
}

Result<QJsonArray> ProbeSession::events(const QString &containerId, const QString &kind)
{
    QJsonObject params{{QStringLiteral("container"), containerId}, {QStringLiteral("limit"), 500}};
    if (!kind.isEmpty())
        params.insert(QStringLiteral("kind"), kind);
    auto answer = call(QStringLiteral("history.events"), params);
    if (!answer)
        return fail(answer.error());
    QJsonArray newestFirst = answer->value(QStringLiteral("events")).toArray();
    QJsonArray oldestFirst;
    for (qsizetype i = newestFirst.size() - 1; i >= 0; --i)
        oldestFirst.append(newestFirst.at(i));
    return oldestFirst;
}

void ProbeSession::deleteAll()
{
    for (const QString &id : std::as_const(m_containers))
        (void)call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
}

} // namespace Cordon::Audit
