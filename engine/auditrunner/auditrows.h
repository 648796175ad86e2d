// SPDX-License-Identifier: MIT
// The audit's rows, one function each (docs/audit.md lists what each proves). Each returns its row, Go or
// No-Go with the evidence; none throws a row away.
#pragma once

#include "audit/auditreport.h"
#include "auditrunner/probesession.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Cordon::Audit {

class PrivateDaemon;

struct AuditContext
{
    ProbeSession &session;
    QJsonObject policy;    // under test, as given
    QString mainContainer; // created from it unchanged
    QJsonObject mainRecord;
    QString probeProgram;
    QString daemonProgram;
    // The audit's own invalid keys, each in every form the masker documents (secretforms.h): none may appear
    // anywhere the audit looks.
    QStringList secretValues;
    // Started by the first row that needs it (credentials.domain_secret's echo restarts it trusting its
    // upstream, the lifecycle rows start it as it is); owned by the runner.
    PrivateDaemon *privateDaemon = nullptr;
};

// Error text for evidence: code and message.
QString describe(const Error &error);
// A copy of the policy under test with `name` and the changes a row needs.
QJsonObject derivedPolicy(const QJsonObject &policy, const QString &name);
// The first host name and port the policy's allowlist names concretely ("*.example.com" gives
// "audit-probe.example.com"), else the first address; an empty host when it names none (or has no network).
QPair<QString, int> allowedTarget(const QJsonObject &policy);
bool hasAllowlist(const QJsonObject &policy);
// An IPv4 or IPv6 literal rather than a host name.
bool isAddress(const QString &host);
// Random hex digits, for keys and markers.
QString randomHex(int digits);

AuditRow credentialsSecret(AuditContext &context);
AuditRow credentialsDomainSecret(AuditContext &context);
AuditRow filesystemWrites(AuditContext &context);
AuditRow filesystemHostHidden(AuditContext &context);
AuditRow filesystemSpecialArtifacts(AuditContext &context);
AuditRow networkDisabled(AuditContext &context);
AuditRow networkAllowedHost(AuditContext &context);
AuditRow networkRefused(AuditContext &context);
AuditRow networkOrgBound(AuditContext &context);
AuditRow rightsPrivileges(AuditContext &context);
AuditRow rightsProcesses(AuditContext &context);
AuditRow limitsMemory(AuditContext &context);
AuditRow limitsPids(AuditContext &context);
AuditRow limitsTimeout(AuditContext &context);
AuditRow limitsOutput(AuditContext &context);
AuditRow limitsWorkspace(AuditContext &context);
AuditRow limitsParallel(AuditContext &context);
AuditRow runsIdempotency(AuditContext &context);
AuditRow lifecycleRestart(AuditContext &context);
AuditRow lifecycleDeletion(AuditContext &context);
AuditRow logsAttribution(AuditContext &context);

} // namespace Cordon::Audit
