// SPDX-License-Identifier: MIT
// The Go/No-Go audit's runner (docs/audit.md): creates fresh containers from the policy under test through
// the daemon, runs each claim of the policy as a live probe (cordon-audit-probe inside the sandbox, plus
// checks of what the daemon recorded and of the host) and returns the report. It talks to the daemon only,
// through the same protocol as the CLI and the workbench; the two rows that must kill a daemon or speed up
// its clock (restart, deletion) start a private cordond of their own in a temporary directory, so that the
// user's daemon and containers are never disturbed.
//
// run() blocks, making its calls with DaemonClient::callSync(): the CLI calls it on its main thread, the
// workbench on a worker thread that owns the client.
#pragma once

#include "audit/auditreport.h"
#include "core/result.h"
#include "daemon/daemonclient.h"

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>

namespace Cordon::Audit {

struct AuditRequest
{
    // The policy under test, as a container policy object (docs/policy.md).
    QJsonObject policy;
    // Its text as the reviewer gave it (a file's contents), kept in the report; empty: the canonical form the
    // daemon answers.
    QString policyText;
    // Set when the policy was taken from an existing container (`cordon audit --container`), for the report.
    QString sourceContainer;
    // Where cordon-audit-probe is; empty: found beside this program or in ../libexec/cordon/.
    QString probeProgram;
    // Where cordond is, for the private daemon of the lifecycle rows; empty: DaemonClient::daemonProgram().
    QString daemonProgram;
    // Only the rows whose id starts with one of these (tests); empty: every row.
    QStringList onlyRows;
};

class AuditRunner final : public QObject
{
    Q_OBJECT

public:
    explicit AuditRunner(Daemon::DaemonClient &client, QObject *parent = nullptr);

    // Begins the audit in the daemon (`audit.begin`, which names it), runs every row in turn, then cleans up
    // what it created (containers, the audit's secrets, the private daemon) and keeps the report in the
    // history (`audit.save`). A row that cannot run is No-Go with the reason, one that cannot apply under the
    // policy is not applicable with the reason; none is left out. Errors only for what stops the whole audit:
    // the policy refused by the daemon (`policy.*`), no probe program (`audit.no_probe`), the report not kept.
    Result<AuditReport> run(const AuditRequest &request);

    // Asks a running audit to stop after the current row; the rows not run are No-Go ("cancelled"). A runner
    // runs one audit: a cancel asked for before run() holds for it.
    void cancel() { m_cancelled = true; }

    // The ids and titles of the rows, in the order they run.
    static QList<QPair<QString, QString>> rowTitles();

Q_SIGNALS:
    // From the thread run() runs on.
    void rowStarted(const QString &id, const QString &title);
    // The row as in the report's JSON (AuditReport::toJson()'s rows).
    void rowFinished(const QJsonObject &row);

private:
    Daemon::DaemonClient &m_client;
    std::atomic<bool> m_cancelled = false;
};

// cordon-audit-probe beside this program, or in ../libexec/cordon/ seen from bin/; empty when neither exists.
QString locateProbeProgram();

// The host's facts for a report: kernel, cgroup version (as the daemon reported it), user namespaces,
// seccomp, Landlock.
std::vector<std::pair<std::string, std::string>> hostFacts(const QString &daemonCgroup);

} // namespace Cordon::Audit
