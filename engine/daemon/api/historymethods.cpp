// SPDX-License-Identifier: MIT
// history.*: runs and events as recorded, page by page, and purging old ones.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"

#include <QDateTime>
#include <QJsonArray>

#include <limits>

namespace Cordon::Api {

namespace {

constexpr qsizetype HistoryOutputPreviewBytes = 32 * 1024;

// Whose rows a list holds (Store::OriginFilter). The user's own by default: an audit makes dozens of runs
// and events that would bury theirs. `audits: true` adds the audits' rows; `origin` names one audit's
// ("audit:<id>"); a request for one container or run is answered whoever made it.
Result<Store::OriginFilter> originFilter(const QJsonObject &params, bool forOneContainer)
{
    auto audits = optionalBool(params, QStringLiteral("audits"));
    auto origin = optionalString(params, QStringLiteral("origin"));
    if (!audits || !origin)
        return fail(invalidParams(QStringLiteral("`audits` must be a boolean and `origin` a string")));
    if (!origin->isEmpty())
        return Store::OriginFilter(*origin);
    if (*audits || forOneContainer)
        return Store::OriginFilter();
    return Store::OriginFilter(QString());
}

Result<QJsonObject> runs(ApiContext &context, const QJsonObject &params)
{
    Store::RunFilter filter;
    auto container = optionalString(params, QStringLiteral("container"));
    auto errorClass = optionalString(params, QStringLiteral("error_class"));
    auto since =
        optionalInteger(params, QStringLiteral("since"), 0, 0, std::numeric_limits<qint64>::max() / 2);
    auto until =
        optionalInteger(params, QStringLiteral("until"), 0, 0, std::numeric_limits<qint64>::max() / 2);
    auto withOutput = optionalBool(params, QStringLiteral("with_output"));
    auto limit = optionalInteger(params, QStringLiteral("limit"), withOutput.value_or(false) ? 20 : 50, 1,
                                 withOutput.value_or(false) ? 20 : 500);
    auto offset = optionalInteger(params, QStringLiteral("offset"), 0, 0, 1LL << 40);
    auto search = optionalString(params, QStringLiteral("search"));
    if (!container || !errorClass || !since || !until || !limit || !offset || !withOutput || !search)
        return fail(invalidParams(
            QStringLiteral("history.runs takes container, error_class, search, origin (strings), since, "
                           "until, limit (1..500, 1..20 with_output), offset (integers), with_output and "
                           "audits (bool)")));
    if (!container->isEmpty())
        CORDON_TRY(requireKnownContainer(context, *container));
    auto origin = originFilter(params, !container->isEmpty());
    if (!origin)
        return fail(origin.error());
    filter.origin = *origin;
    filter.text = search->trimmed();
    filter.containerId = *container;
    filter.errorClass = *errorClass;
    filter.since = *since;
    filter.until = *until;
    filter.limit = static_cast<int>(*limit);
    filter.offset = static_cast<int>(*offset);
    auto page = context.store.runs(filter, *withOutput);
    if (!page)
        return fail(page.error());
    QJsonArray runs;
    // With output, a page is at most 20 runs of 32 KiB previews per stream (run.output has the rest), so
    // that no answer can pass the frame limit.
    for (const Store::RunRecord &run : page->items)
        runs.append(runRecordToJson(run, *withOutput, HistoryOutputPreviewBytes));
    return QJsonObject{{QStringLiteral("runs"), runs}, {QStringLiteral("total"), page->total}};
}

Result<QJsonObject> events(ApiContext &context, const QJsonObject &params)
{
    Store::EventFilter filter;
    auto container = optionalString(params, QStringLiteral("container"));
    auto runId = optionalString(params, QStringLiteral("run_id"));
    auto kind = optionalString(params, QStringLiteral("kind"));
    auto since =
        optionalInteger(params, QStringLiteral("since"), 0, 0, std::numeric_limits<qint64>::max() / 2);
    auto limit = optionalInteger(params, QStringLiteral("limit"), 100, 1, 500);
    auto offset = optionalInteger(params, QStringLiteral("offset"), 0, 0, 1LL << 40);
    if (!container || !runId || !kind || !since || !limit || !offset)
        return fail(
            invalidParams(QStringLiteral("history.events takes container, run_id, kind (strings), since, "
                                         "limit (1..500) and offset (integers)")));
    if (!container->isEmpty())
        CORDON_TRY(requireKnownContainer(context, *container));
    if (!runId->isEmpty())
        CORDON_TRY(requireKnownRun(context, *runId));
    auto origin = originFilter(params, !container->isEmpty() || !runId->isEmpty());
    if (!origin)
        return fail(origin.error());
    filter.origin = *origin;
    filter.containerId = *container;
    filter.runId = *runId;
    if (kind->endsWith(QLatin1Char('.')))
        filter.kindPrefix = *kind;
    else
        filter.kind = *kind;
    filter.since = *since;
    filter.limit = static_cast<int>(*limit);
    filter.offset = static_cast<int>(*offset);
    auto page = context.store.events(filter);
    if (!page)
        return fail(page.error());
    QJsonArray events;
    for (const Store::EventRecord &event : page->items)
        events.append(eventToJson(event));
    return QJsonObject{{QStringLiteral("events"), events}, {QStringLiteral("total"), page->total}};
}

Result<QJsonObject> purge(ApiContext &context, const QJsonObject &params)
{
    auto days = optionalInteger(params, QStringLiteral("older_than_days"), -1, 0, 36500);
    if (!days)
        return fail(days.error());
    if (*days < 0)
        return fail(invalidParams(QStringLiteral("`older_than_days` is required")));
    auto purged = context.store.purgeOlderThan(QDateTime::currentMSecsSinceEpoch() - *days * 86400000LL);
    if (!purged)
        return fail(purged.error());
    return QJsonObject{{QStringLiteral("runs"), purged->runs},
                       {QStringLiteral("events"), purged->events},
                       {QStringLiteral("files"), purged->files},
                       {QStringLiteral("containers"), purged->containers}};
}

} // namespace

void addHistoryMethods(MethodTable &table)
{
    table.add(QStringLiteral("history.runs"),
              {QStringLiteral("container"), QStringLiteral("error_class"), QStringLiteral("since"),
               QStringLiteral("until"), QStringLiteral("limit"), QStringLiteral("offset"),
               QStringLiteral("with_output"), QStringLiteral("search"), QStringLiteral("audits"),
               QStringLiteral("origin")},
              runs);
    table.add(QStringLiteral("history.events"),
              {QStringLiteral("container"), QStringLiteral("run_id"), QStringLiteral("kind"),
               QStringLiteral("since"), QStringLiteral("limit"), QStringLiteral("offset"),
               QStringLiteral("audits"), QStringLiteral("origin")},
              events);
    table.add(QStringLiteral("history.purge"), {QStringLiteral("older_than_days")}, purge);
}

} // namespace Cordon::Api
