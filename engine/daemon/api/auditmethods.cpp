// SPDX-License-Identifier: MIT
// audit.*: the Go/No-Go audit's reports (docs/audit.md). The runner lives in the clients; the daemon keeps
// the reports in the history and signs them with the user's key, which never leaves it. An audit begins here
// (audit.begin names it), so that only the report of an audit the daemon saw begin is kept, and only a kept
// report is signed.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"

#include "core/plainbridge.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace Cordon::Api {

namespace {

QJsonObject summaryToJson(const Store::AuditRecord &record)
{
    return {{QStringLiteral("id"), record.id},
            {QStringLiteral("created_at"), record.createdAt},
            {QStringLiteral("policy_version"), record.policyVersion},
            {QStringLiteral("verdict"), record.verdict},
            {QStringLiteral("rows"), record.rows},
            {QStringLiteral("rows_applied"), record.rowsApplied},
            {QStringLiteral("go_rows"), record.goRows},
            {QStringLiteral("signed"), !record.keyId.isEmpty()},
            {QStringLiteral("key_id"), record.keyId}};
}

QJsonObject withReport(const Store::AuditRecord &record)
{
    return {{QStringLiteral("audit"), summaryToJson(record)},
            {QStringLiteral("report"), QJsonDocument::fromJson(record.report).object()}};
}

Result<QJsonObject> requireReport(const QJsonObject &params)
{
    const QJsonValue report = params.value(QStringLiteral("report"));
    if (!report.isObject())
        return fail(invalidParams(QStringLiteral("`report` must be a report object (docs/audit.md)")));
    return report.toObject();
}

Result<QJsonObject> begin(ApiContext &context, const QJsonObject &)
{
    const Containers::ContainerManager::AuditStart start = context.manager.beginAudit();
    return QJsonObject{{QStringLiteral("id"), start.id}, {QStringLiteral("created_at"), start.createdAt}};
}

Result<QJsonObject> save(ApiContext &context, const QJsonObject &params)
{
    auto report = requireReport(params);
    if (!report)
        return fail(report.error());
    auto saved = context.manager.saveAudit(*report);
    if (!saved)
        return fail(saved.error());
    return wrap(QStringLiteral("audit"), summaryToJson(*saved));
}

Result<QJsonObject> sign(ApiContext &context, const QJsonObject &params)
{
    auto id = optionalString(params, QStringLiteral("id"));
    auto name = requireString(params, QStringLiteral("name"));
    auto role = requireString(params, QStringLiteral("role"));
    auto decision = requireString(params, QStringLiteral("decision"));
    auto date = requireString(params, QStringLiteral("date"));
    for (const auto *given : {&id, &name, &role, &decision, &date}) {
        if (!*given)
            return fail(given->error());
    }
    QJsonObject report;
    if (params.contains(QStringLiteral("report"))) {
        if (!id->isEmpty())
            return fail(invalidParams(QStringLiteral("give either `report` or `id`, not both")));
        auto given = requireReport(params);
        if (!given)
            return fail(given.error());
        report = *given;
    } else {
        if (id->isEmpty())
            return fail(
                invalidParams(QStringLiteral("give the `report` to sign, or the `id` of a stored one")));
        auto stored = context.manager.auditRecord(*id);
        if (!stored)
            return fail(stored.error());
        report = QJsonDocument::fromJson(stored->report).object();
    }
    auto signedRecord = context.manager.signAudit(
        report, Audit::SignOff{toPlain(*name), toPlain(*role), toPlain(*decision), toPlain(*date)});
    if (!signedRecord)
        return fail(signedRecord.error());
    return withReport(*signedRecord);
}

Result<QJsonObject> get(ApiContext &context, const QJsonObject &params)
{
    auto id = requireString(params, QStringLiteral("id"));
    if (!id)
        return fail(id.error());
    auto record = context.manager.auditRecord(*id);
    if (!record)
        return fail(record.error());
    return withReport(*record);
}

Result<QJsonObject> list(ApiContext &context, const QJsonObject &params)
{
    auto limit = optionalInteger(params, QStringLiteral("limit"), 50, 1, 500);
    auto offset = optionalInteger(params, QStringLiteral("offset"), 0, 0, std::numeric_limits<int>::max());
    if (!limit || !offset)
        return fail(!limit ? limit.error() : offset.error());
    auto page = context.manager.auditRecords(int(*limit), int(*offset));
    if (!page)
        return fail(page.error());
    QJsonArray audits;
    for (const Store::AuditRecord &record : page->items)
        audits.append(summaryToJson(record));
    return QJsonObject{{QStringLiteral("audits"), audits}, {QStringLiteral("total"), page->total}};
}

} // namespace

void addAuditMethods(MethodTable &table)
{
    table.add(QStringLiteral("audit.begin"), {}, begin);
    table.add(QStringLiteral("audit.save"), {QStringLiteral("report")}, save);
    table.add(QStringLiteral("audit.sign"),
              {QStringLiteral("report"), QStringLiteral("id"), QStringLiteral("name"), QStringLiteral("role"),
               QStringLiteral("decision"), QStringLiteral("date")},
              sign);
    table.add(QStringLiteral("audit.get"), {QStringLiteral("id")}, get);
    table.add(QStringLiteral("audit.list"), {QStringLiteral("limit"), QStringLiteral("offset")}, list);
}

} // namespace Cordon::Api
