// SPDX-License-Identifier: MIT
// The Go/No-Go audit's reports in the daemon (docs/audit.md): checked, kept in the history, signed with the
// user's key. The key never leaves the daemon: clients send a report and a sign-off and get the signed
// report.
#include "containers/containermanager.h"

#include "audit/heldreport.h"
#include "audit/reportsignature.h"
#include "core/plainbridge.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <algorithm>

namespace Cordon::Containers {

namespace {

// The document as a checked report: its form, every row's evidence hash, and a signature when it has one.
Result<Audit::AuditReport> checkedReport(const Json &document)
{
    auto report = Audit::AuditReport::fromJson(document);
    if (!report)
        return fail(report.error());
    auto verification = Audit::verifyReport(document);
    if (!verification)
        return fail(verification.error());
    if (!verification->alteredRows.empty())
        return fail(
            QStringLiteral("audit.bad_report"),
            QStringLiteral("the evidence of row %1 no longer matches its evidence_sha256: the report was "
                           "edited after it was made")
                .arg(toQt(verification->alteredRows.front())));
    if (document["verdict"].toString() != Audit::verdictName(report->verdict()))
        return fail(QStringLiteral("audit.bad_report"),
                    QStringLiteral("the report's verdict is not what its rows give"));
    if (verification->isSigned && !verification->signatureValid)
        return fail(QStringLiteral("audit.bad_signature"),
                    QStringLiteral("the report's signature does not match its content"));
    return report;
}

Store::AuditRecord recordOf(const Audit::AuditReport &report, const Json &document)
{
    Store::AuditRecord record;
    record.id = toQt(report.id);
    const QDateTime created = QDateTime::fromString(toQt(report.createdAt), Qt::ISODate);
    record.createdAt = created.isValid() ? created.toMSecsSinceEpoch() : QDateTime::currentMSecsSinceEpoch();
    record.policyVersion = toQt(report.policyVersion);
    record.verdict = QLatin1String(Audit::verdictName(report.verdict()));
    record.rows = int(report.rows.size());
    record.rowsApplied = report.appliedRows();
    record.goRows = report.goRows();
    record.keyId = report.signature ? toQt(report.signature->keyId) : QString();
    record.report = QByteArray::fromStdString(document.serialize());
    return record;
}

Result<> checkSignOff(const Audit::SignOff &signOff)
{
    static const QRegularExpression date(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
    if (signOff.name.empty() || signOff.name.size() > 200 || signOff.role.empty() ||
        signOff.role.size() > 200)
        return fail(QStringLiteral("audit.bad_sign_off"),
                    QStringLiteral("a sign-off needs a name and a role, each at most 200 bytes"));
    if (signOff.decision != "go" && signOff.decision != "no_go")
        return fail(QStringLiteral("audit.bad_sign_off"), QStringLiteral("the decision is `go` or `no_go`"));
    if (!date.match(toQt(signOff.date)).hasMatch() ||
        !QDate::fromString(toQt(signOff.date), Qt::ISODate).isValid())
        return fail(QStringLiteral("audit.bad_sign_off"),
                    QStringLiteral("the date is a day as YYYY-MM-DD, not `%1`").arg(toQt(signOff.date)));
    return {};
}

} // namespace

// A report the history keeps under this id is the one given, but for its sign-off and signature: a stored
// report is never replaced by an edited one, signed or not.
Result<> ContainerManager::sameAsStored(const Audit::AuditReport &report, const Json &document) const
{
    auto stored = m_store.audit(toQt(report.id));
    if (!stored)
        return stored.error().code() == "store.not_found" ? Result<>() : Result<>(fail(stored.error()));
    auto storedDocument = Json::read(toPlain(stored->report));
    if (!storedDocument)
        return fail(storedDocument.error());
    const auto withoutSignOff = [](const Json &json) {
        QJsonObject object = toQt(json).toObject();
        object.remove(QStringLiteral("sign_off"));
        object.remove(QStringLiteral("signature"));
        return object;
    };
    if (withoutSignOff(document) != withoutSignOff(*storedDocument))
        return fail(
            QStringLiteral("audit.exists"),
            QStringLiteral("the history keeps a different report with the id %1: a kept report is not "
                           "replaced")
                .arg(toQt(report.id)));
    return {};
}

Result<> ContainerManager::heldUnchanged(const Audit::AuditReport &report, const Json &document) const
{
    auto stored = m_store.audit(toQt(report.id));
    if (!stored && stored.error().code() == "store.not_found")
        return fail(QStringLiteral("audit.not_held"),
                    QStringLiteral("the history holds no audit %1: only a report this daemon kept is signed, "
                                   "and a signature proves that its audit ran")
                        .arg(toQt(report.id)));
    if (!stored)
        return fail(stored.error());
    auto storedDocument = Json::read(toPlain(stored->report));
    if (!storedDocument)
        return fail(storedDocument.error());
    if (const std::string difference = Audit::differenceFromHeld(*storedDocument, document);
        !difference.empty())
        return fail(QStringLiteral("audit.not_held"),
                    QStringLiteral("this is not the report the history holds as %1: %2")
                        .arg(toQt(report.id), toQt(difference)));
    return {};
}

ContainerManager::AuditStart ContainerManager::beginAudit()
{
    // Bounded: a client that begins audits and never ends them cannot grow the daemon.
    constexpr std::size_t MaxBegun = 64;
    if (m_begunAudits.size() >= MaxBegun)
        m_begunAudits.pop_front();
    const quint64 random = QRandomGenerator::system()->generate64();
    AuditStart start{QStringLiteral("au-") + QStringLiteral("%1").arg(random, 16, 16, QLatin1Char('0')),
                     QDateTime::currentDateTimeUtc().toString(Qt::ISODate)};
    m_begunAudits.push_back(start);
    return start;
}

Result<Store::AuditRecord> ContainerManager::saveAudit(const QJsonObject &reportJson)
{
    const Json document = toPlain(reportJson);
    auto report = checkedReport(document);
    if (!report)
        return fail(report.error());
    CORDON_TRY(sameAsStored(*report, document));
    // Only the report of an audit this daemon began, once; the same report again is a no-op.
    const auto begun = std::find_if(m_begunAudits.begin(), m_begunAudits.end(), [&](const AuditStart &start) {
        return start.id == toQt(report->id) && start.createdAt == toQt(report->createdAt);
    });
    const bool kept = m_store.audit(toQt(report->id)).has_value();
    if (begun == m_begunAudits.end() && !kept)
        return fail(
            QStringLiteral("audit.not_begun"),
            QStringLiteral("this daemon began no audit %1 at %2: only the report of an audit it began "
                           "(audit.begin) is kept")
                .arg(toQt(report->id), toQt(report->createdAt)));
    if (begun != m_begunAudits.end())
        m_begunAudits.erase(begun);
    const Store::AuditRecord record = recordOf(*report, document);
    CORDON_TRY(m_store.saveAudit(record));
    recordEvent({}, {}, QStringLiteral("audit.saved"),
                {{QStringLiteral("id"), record.id},
                 {QStringLiteral("verdict"), record.verdict},
                 {QStringLiteral("policy_version"), record.policyVersion},
                 {QStringLiteral("rows"), record.rows},
                 {QStringLiteral("go_rows"), record.goRows}});
    return record;
}

Result<Store::AuditRecord> ContainerManager::signAudit(const QJsonObject &reportJson,
                                                       const Audit::SignOff &signOff)
{
    CORDON_TRY(checkSignOff(signOff));
    auto report = checkedReport(toPlain(reportJson));
    if (!report)
        return fail(report.error());
    CORDON_TRY(heldUnchanged(*report, toPlain(reportJson)));
    // A claim that was not run cannot be signed off: a partial audit (`--row`) is never Go.
    const bool partial = std::any_of(report->hostFacts.begin(), report->hostFacts.end(),
                                     [](const auto &fact) { return fact.first == "rows_run"; });
    if (partial && signOff.decision == "go")
        return fail(QStringLiteral("audit.partial"),
                    QStringLiteral("only some rows of this audit ran: it can be signed off No-Go, not Go"));
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    auto seed = (*store)->auditSigningSeed(QDateTime::currentMSecsSinceEpoch());
    if (!seed)
        return fail(seed.error());
    report->signOff = signOff;
    report->signature.reset();
    auto signedDocument = Audit::signReport(*report, *seed);
    std::fill(seed->begin(), seed->end(), '\0');
    if (!signedDocument)
        return fail(signedDocument.error());
    auto signedReport = Audit::AuditReport::fromJson(*signedDocument);
    if (!signedReport)
        return fail(signedReport.error());
    const Store::AuditRecord record = recordOf(*signedReport, *signedDocument);
    CORDON_TRY(m_store.saveAudit(record));
    recordEvent({}, {}, QStringLiteral("audit.signed"),
                {{QStringLiteral("id"), record.id},
                 {QStringLiteral("key_id"), record.keyId},
                 {QStringLiteral("decision"), toQt(signOff.decision)},
                 {QStringLiteral("name"), toQt(signOff.name)},
                 {QStringLiteral("role"), toQt(signOff.role)},
                 {QStringLiteral("date"), toQt(signOff.date)}});
    return record;
}

Result<Store::AuditRecord> ContainerManager::auditRecord(const QString &id) const
{
    auto record = m_store.audit(id);
    if (!record && record.error().code() == "store.not_found")
        return fail(QStringLiteral("audit.not_found"), QStringLiteral("no audit with id %1").arg(id));
    return record;
}

Result<Store::Page<Store::AuditRecord>> ContainerManager::auditRecords(int limit, int offset) const
{
    return m_store.audits(limit, offset);
}

} // namespace Cordon::Containers
