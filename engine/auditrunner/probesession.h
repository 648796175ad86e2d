// SPDX-License-Identifier: MIT
// What the audit's rows share: one daemon connection, the containers made for the audit (deleted at the
// end), the probe program run inside them, and a recorder for each row's evidence.
#pragma once

#include "audit/auditreport.h"
#include "core/result.h"
#include "daemon/daemonclient.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Cordon::Audit {

// Collects a row's evidence as it is observed, then gives the row its verdict.
class RowRecorder final
{
public:
    RowRecorder(QString id, QString title);

    void evidence(const QString &label, const QString &text);
    // A run as its evidence (audit/runevidence.h: the run export's format), after a "step" piece naming
    // `what`.
    void runEvidence(const QString &what, const QJsonObject &run);
    // One check of many: kept as evidence ("held: <claim>" or "failed: <failure>"), and the row is No-Go when
    // any failed, with the first failure as its reason. `failure` says what was observed instead ("the key
    // was found in the downloaded outputs"): a No-Go reason that repeats the claim tells a reviewer nothing.
    void check(bool held, const QString &claim, const QString &failure);
    void fail(const QString &failure) { check(false, {}, failure); }
    bool allHeld() const { return m_failed.isEmpty(); }

    // Go with `reason` when every check held, else No-Go with the first failed check.
    AuditRow finish(const QString &reason);
    AuditRow noGo(const QString &reason);
    // The claim cannot apply under the policy (docs/audit.md): `reason` says why.
    AuditRow notApplicable(const QString &reason);

    const QString &id() const { return m_id; }

private:
    AuditRow make(Verdict verdict, const QString &reason);

    QString m_id;
    QString m_title;
    QElapsedTimer m_clock;
    std::vector<Evidence> m_evidence;
    QString m_failed;
};

// An excerpt of untrusted text for evidence: at most `limit` characters, control characters shown as `\xNN`.
QString excerpt(const QString &text, int limit = 400);

class ProbeSession final
{
public:
    // `origin` goes with every container it creates (container.create's `origin`, "audit:<id>"), so that the
    // audit's containers, runs and events stay out of the user's own lists and stay the audit's.
    ProbeSession(Daemon::DaemonClient &client, QString probeProgram, QString origin);

    Daemon::DaemonClient &client() { return m_client; }
    const QString &origin() const { return m_origin; }

    Result<QJsonObject> call(const QString &method, const QJsonObject &params, int timeoutMs = 30000);

    // container.create, then the probe uploaded into its inputs. The id is remembered for deleteAll().
    Result<QString> createContainer(const QJsonObject &policy);
    // Runs the probe with `args` and waits for the run's end; the finished run object. `timeoutS` 0: the
    // policy's run timeout.
    Result<QJsonObject> probe(const QString &containerId, const QStringList &args, int timeoutS = 0,
                              const QString &idempotencyKey = {});
    // Starts the probe without waiting: the running run object.
    Result<QJsonObject> startProbe(const QString &containerId, const QStringList &args, int timeoutS = 0,
                                   const QString &idempotencyKey = {});
    Result<QJsonObject> wait(const QString &runId, int timeoutMs);
    // Every event of a container, oldest first.
    Result<QJsonArray> events(const QString &containerId, const QString &kind = {});

    const QStringList &containers() const { return m_containers; }
    void deleteAll();

    // The full command a probe run executes, and the short form shown in evidence.
    static QJsonArray probeCommand(const QStringList &args);
    static QString shownCommand(const QStringList &args);
    // "cordon-audit-probe ARGS -> ANSWER (run ID)": what a probe run observed, attributable to its run.
    static QString observed(const QStringList &args, const QString &answer, const QJsonObject &run);

private:
    Daemon::DaemonClient &m_client;
    QString m_probeProgram;
    QString m_origin;
    QStringList m_containers;
};

// `key: value` lines of a probe's stdout.
QString probeValue(const QString &stdoutText, const QString &key);

} // namespace Cordon::Audit
