// SPDX-License-Identifier: MIT
#include "auditrunner/auditrunner.h"

#include "auditrunner/auditrows.h"
#include "auditrunner/privatedaemon.h"
#include "core/plainbridge.h"
#include "sandbox/policy/containerpolicy.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <sys/utsname.h>

namespace Cordon::Audit {

namespace {

using RowFunction = AuditRow (*)(AuditContext &);

struct RowSpec
{
    const char *id;
    const char *title;
    RowFunction run;
};

// The order matters twice: the rows that fill memory run in containers of their own or late, and the logs
// row reads the history of everything before it.
constexpr RowSpec Rows[] = {
    {"credentials.secret", "An invalid key given as a secret never shows", credentialsSecret},
    {"credentials.domain_secret", "A domain secret never enters the sandbox", credentialsDomainSecret},
    {"filesystem.writes", "Writes land only where the policy allows", filesystemWrites},
    {"filesystem.host_hidden", "Host paths are invisible", filesystemHostHidden},
    {"filesystem.special_artifacts", "A symlink or special file is refused at download",
     filesystemSpecialArtifacts},
    {"network.disabled", "No route without network", networkDisabled},
    {"network.allowed_host", "The allowlisted host is reached", networkAllowedHost},
    {"network.refused", "Unlisted hosts, private and metadata addresses are refused", networkRefused},
    {"network.org_bound", "The organisation list bounds the container's", networkOrgBound},
    {"rights.privileges", "No capabilities, seccomp on, no new privileges", rightsPrivileges},
    {"rights.processes", "No host process is visible", rightsProcesses},
    {"limits.pids", "The pids limit holds", limitsPids},
    {"limits.timeout", "The run timeout ends a run as timeout", limitsTimeout},
    {"limits.output", "Output is capped", limitsOutput},
    {"limits.parallel", "At most the configured parallel runs", limitsParallel},
    {"runs.idempotency", "The same idempotency key runs once", runsIdempotency},
    {"limits.memory", "The memory limit ends a run as oom", limitsMemory},
    {"limits.workspace", "The workspace quota holds", limitsWorkspace},
    {"lifecycle.restart", "A daemon killed mid-run ends nothing: the next one adopts the run",
     lifecycleRestart},
    {"lifecycle.deletion", "Expiry removes everything, with a receipt", lifecycleDeletion},
    {"logs.attribution", "Every record names its run, container, policy and times, without secrets",
     logsAttribution},
};

bool selected(const AuditRequest &request, const QString &id)
{
    if (request.onlyRows.isEmpty())
        return true;
    for (const QString &prefix : request.onlyRows) {
        if (id.startsWith(prefix))
            return true;
    }
    return false;
}

QString readTrimmed(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).trimmed() : QString();
}

} // namespace

QString locateProbeProgram()
{
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString &candidate : {here.filePath(QStringLiteral("cordon-audit-probe")),
                                     here.filePath(QStringLiteral("../libexec/cordon/cordon-audit-probe")),
                                     here.filePath(QStringLiteral("../app/cordon-audit-probe"))}) {
        if (QFileInfo(candidate).isFile())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return {};
}

std::vector<std::pair<std::string, std::string>> hostFacts(const QString &daemonCgroup)
{
    std::vector<std::pair<std::string, std::string>> facts;
    struct utsname names = {};
    if (::uname(&names) == 0)
        facts.emplace_back("kernel", std::string(names.release) + " " + names.machine);
    facts.emplace_back("cgroup", daemonCgroup.isEmpty() ? std::string("unknown") : toPlain(daemonCgroup));
    const QString userns = readTrimmed(QStringLiteral("/proc/sys/user/max_user_namespaces"));
    const QString unprivileged = readTrimmed(QStringLiteral("/proc/sys/kernel/unprivileged_userns_clone"));
    facts.emplace_back("user_namespaces",
                       toPlain(QStringLiteral("max %1%2")
                                   .arg(userns.isEmpty() ? QStringLiteral("?") : userns,
                                        unprivileged.isEmpty()
                                            ? QString()
                                            : QStringLiteral(", unprivileged clone %1").arg(unprivileged))));
    const QString actions = readTrimmed(QStringLiteral("/proc/sys/kernel/seccomp/actions_avail"));
    facts.emplace_back("seccomp", actions.isEmpty()
                                      ? std::string("unavailable")
                                      : toPlain(QStringLiteral("filter (") + actions + QLatin1Char(')')));
    const QString lsm = readTrimmed(QStringLiteral("/sys/kernel/security/lsm"));
    facts.emplace_back("landlock", lsm.isEmpty() ? std::string("unknown (securityfs not readable)")
                                   : lsm.contains(QStringLiteral("landlock")) ? std::string("enabled")
                                                                              : std::string("not enabled"));
    return facts;
}

AuditRunner::AuditRunner(Daemon::DaemonClient &client, QObject *parent) : QObject(parent), m_client(client) {}

QList<QPair<QString, QString>> AuditRunner::rowTitles()
{
    QList<QPair<QString, QString>> titles;
    for (const RowSpec &spec : Rows)
        titles.append({QLatin1String(spec.id), QLatin1String(spec.title)});
    return titles;
}

Result<AuditReport> AuditRunner::run(const AuditRequest &request)
{
    const QString probeProgram = request.probeProgram.isEmpty() ? locateProbeProgram() : request.probeProgram;
    if (probeProgram.isEmpty() || !QFileInfo(probeProgram).isFile())
        return fail(
            QStringLiteral("audit.no_probe"),
            QStringLiteral("cordon-audit-probe was not found beside this program or in libexec/cordon"));

    // The version of the policy as given, by the daemon's own rules: the report names what was audited.
    auto audited = Policy::ContainerPolicy::fromJsonValue(toPlain(request.policy));
    if (!audited)
        return fail(audited.error());
    auto status = m_client.callSync(QStringLiteral("daemon.status"), {});
    if (!status)
        return fail(status.error());
    // The daemon names the audit: it keeps only the report of an audit it saw begin. Begun first, so that
    // every container the audit makes carries its id (ProbeSession's origin).
    auto begun = m_client.callSync(QStringLiteral("audit.begin"), {});
    if (!begun)
        return fail(begun.error());
    const QString auditId = begun->value(QStringLiteral("id")).toString();
    ProbeSession session(m_client, probeProgram, QStringLiteral("audit:") + auditId);
    // The container under test is the policy with only its name changed: a live container of the user's may
    // have the name already (an audited container always does).
    const QString name = QStringLiteral("audit-") + toQt(audited->name);
    auto mainContainer = session.createContainer(derivedPolicy(request.policy, name.left(64)));
    if (!mainContainer) {
        session.deleteAll(); // created, but the probe could not be uploaded
        return fail(mainContainer.error());
    }
    auto record = session.call(QStringLiteral("container.get"), {{QStringLiteral("id"), *mainContainer}});
    if (!record) {
        session.deleteAll();
        return fail(record.error());
    }

    PrivateDaemon privateDaemon(request.daemonProgram.isEmpty() ? Daemon::DaemonClient::daemonProgram()
                                                                : request.daemonProgram);
    AuditContext context{session,
                         request.policy,
                         *mainContainer,
                         record->value(QStringLiteral("container")).toObject(),
                         probeProgram,
                         request.daemonProgram,
                         {},
                         &privateDaemon};

    AuditReport report;
    report.id = toPlain(auditId);
    report.createdAt = toPlain(begun->value(QStringLiteral("created_at")).toString());
    report.cordonVersion = toPlain(status->value(QStringLiteral("version")).toString());
    report.hostFacts = hostFacts(status->value(QStringLiteral("cgroup")).toString());
    report.policyVersion = audited->version();
    // The policy as audited (not the renamed copy the container under test runs): as given, or in the
    // canonical form whose sha256 is the report's version.
    report.policyText = request.policyText.isEmpty() ? audited->canonicalJson() : toPlain(request.policyText);
    if (!request.sourceContainer.isEmpty())
        report.hostFacts.emplace_back("audited_container", toPlain(request.sourceContainer));
    if (!request.onlyRows.isEmpty())
        report.hostFacts.emplace_back(
            "rows_run", toPlain(QStringLiteral("only the rows starting with %1: a partial audit")
                                    .arg(request.onlyRows.join(QStringLiteral(", ")))));
    report.hostFacts.emplace_back(
        "container_under_test",
        toPlain(QStringLiteral("%1 (the policy named %2: version %3)")
                    .arg(*mainContainer, name.left(64),
                         context.mainRecord.value(QStringLiteral("policy_version")).toString())));

    for (const RowSpec &spec : Rows) {
        const QString id = QLatin1String(spec.id);
        if (!selected(request, id))
            continue;
        Q_EMIT rowStarted(id, QLatin1String(spec.title));
        AuditRow row;
        if (m_cancelled) {
            RowRecorder skipped(id, QLatin1String(spec.title));
            row = skipped.noGo(QStringLiteral("cancelled before this row ran"));
        } else {
            row = spec.run(context);
        }
        // The audit's own keys never enter the report, even when a row caught them leaking.
        for (const QString &value : std::as_const(context.secretValues)) {
            const std::string key = toPlain(value);
            for (Evidence &piece : row.evidence) {
                for (std::size_t at = piece.text.find(key); at != std::string::npos;
                     at = piece.text.find(key, at))
                    piece.text.replace(at, key.size(), "[audit key]");
            }
        }
        report.rows.push_back(row);
        Q_EMIT rowFinished(
            toQt(report.toJson()).toObject().value(QStringLiteral("rows")).toArray().last().toObject());
    }
    session.deleteAll();
    privateDaemon.stop();
    // Kept in the history, where `cordon audit sign ID` and the workbench find it.
    auto saved = session.call(QStringLiteral("audit.save"),
                              {{QStringLiteral("report"), toQt(report.toJson()).toObject()}});
    if (!saved)
        return fail(saved.error().wrap("keep the report in the history"));
    return report;
}

} // namespace Cordon::Audit
