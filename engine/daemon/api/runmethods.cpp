// SPDX-License-Identifier: MIT
// run.*: starting a run in a container, feeding it, waiting for it, stopping it.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <limits>

namespace Cordon::Api {

namespace {

Result<QJsonObject> startRun(ApiContext &context, const QJsonObject &params)
{
    auto container = requireString(params, QStringLiteral("container"));
    auto language = optionalString(params, QStringLiteral("language"));
    auto code = optionalString(params, QStringLiteral("code"));
    auto stdinData = optionalBase64(params, QStringLiteral("stdin"));
    auto keepOpen = optionalBool(params, QStringLiteral("stdin_open"));
    auto timeout = optionalInteger(params, QStringLiteral("timeout_s"), 0, 0, 86400);
    auto key = optionalString(params, QStringLiteral("idempotency_key"));
    if (!container || !language || !code || !stdinData || !keepOpen || !timeout || !key)
        return fail(!container   ? container.error()
                    : !language  ? language.error()
                    : !code      ? code.error()
                    : !stdinData ? stdinData.error()
                    : !keepOpen  ? keepOpen.error()
                    : !timeout   ? timeout.error()
                                 : key.error());
    Containers::ExecRequest request;
    const QJsonValue command = params.value(QStringLiteral("command"));
    if (!command.isUndefined()) {
        if (!command.isArray() || command.toArray().isEmpty())
            return fail(invalidParams(QStringLiteral("`command` must be a non-empty array of strings")));
        for (const QJsonValue &arg : command.toArray()) {
            if (!arg.isString() || arg.toString().contains(QChar(0)))
                return fail(invalidParams(QStringLiteral("`command` must be a non-empty array of strings")));
            request.command.append(arg.toString());
        }
    }
    if (request.command.isEmpty() == language->isEmpty())
        return fail(invalidParams(QStringLiteral("give either `command` or `language` with `code`")));
    request.language = *language;
    request.code = *code;
    request.stdinData = *stdinData;
    request.keepStdinOpen = *keepOpen;
    request.timeoutS = static_cast<int>(*timeout);
    auto run = context.manager.exec(*container, request, *key);
    if (!run)
        return fail(run.error());
    return wrap(QStringLiteral("run"), runToJson(*run));
}

// The run is the client's: a subscription to its own runs ({"runs": "own"}) gets its events.
void exec(ApiContext &context, const Daemon::ClientInfo &client, const QJsonObject &params, Respond respond)
{
    Result<QJsonObject> answer = startRun(context, params);
    // A repeated idempotency key answers with a run that may have ended: only a running one has events to
    // come, and its claim is dropped with run.finished.
    const QString runId =
        answer ? answer->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString()
               : QString();
    if (!runId.isEmpty() && context.manager.isRunActive(runId))
        context.server.claimRun(client.connectionId, runId);
    respond(std::move(answer));
}

Result<QJsonObject> writeStdin(ApiContext &context, const QJsonObject &params)
{
    auto runId = requireString(params, QStringLiteral("run_id"));
    auto data = optionalBase64(params, QStringLiteral("data"));
    auto eof = optionalBool(params, QStringLiteral("eof"));
    if (!runId || !data || !eof)
        return fail(!runId ? runId.error() : !data ? data.error() : eof.error());
    CORDON_TRY(context.manager.writeStdin(*runId, data->value_or(QByteArray()), *eof));
    return QJsonObject{};
}

Result<QJsonObject> cancel(ApiContext &context, const QJsonObject &params)
{
    auto runId = requireString(params, QStringLiteral("run_id"));
    if (!runId)
        return fail(runId.error());
    auto run = context.manager.cancel(*runId);
    if (!run)
        return fail(run.error());
    return wrap(QStringLiteral("run"), runToJson(*run));
}

Result<QJsonObject> get(ApiContext &context, const QJsonObject &params)
{
    auto runId = requireString(params, QStringLiteral("run_id"));
    if (!runId)
        return fail(runId.error());
    auto found = context.manager.run(*runId);
    if (!found)
        return fail(found.error());
    QJsonObject run = runToJson(*found);
    // run.get carries the policy itself, not only its hash: a reviewer reads what the run ran under, and an
    // exported run keeps it (the stored text is canonical JSON, written by the daemon).
    const QString &version = found->record.policyVersion;
    if (!version.isEmpty()) {
        if (auto policy = context.store.policyJson(version); policy && !policy->isEmpty())
            run.insert(QStringLiteral("policy"), QJsonDocument::fromJson(*policy).object());
    }
    return wrap(QStringLiteral("run"), run);
}

// run.output {run_id, stream, offset, limit}: a page of a finished run's stored output as base64, so that
// any output, binary included, comes out whole in answers that stay far below the frame limit.
Result<QJsonObject> output(ApiContext &context, const QJsonObject &params)
{
    constexpr qint64 MaxPageBytes = 4 * 1024 * 1024;
    auto runId = requireString(params, QStringLiteral("run_id"));
    auto stream = requireString(params, QStringLiteral("stream"));
    auto offset = optionalInteger(params, QStringLiteral("offset"), 0, 0, std::numeric_limits<qint32>::max());
    auto limit = optionalInteger(params, QStringLiteral("limit"), MaxPageBytes, 1, MaxPageBytes);
    if (!runId || !stream || !offset || !limit)
        return fail(!runId    ? runId.error()
                    : !stream ? stream.error()
                    : !offset ? offset.error()
                              : limit.error());
    if (*stream != QLatin1String("stdout") && *stream != QLatin1String("stderr"))
        return fail(invalidParams(QStringLiteral("`stream` must be stdout or stderr")));
    if (context.manager.isRunActive(*runId))
        return fail(
            QStringLiteral("run.active"),
            QStringLiteral("run `%1` is still running: its output comes as run.output events").arg(*runId));
    auto found = context.manager.run(*runId);
    if (!found)
        return fail(found.error());
    const QByteArray &data =
        *stream == QLatin1String("stdout") ? found->record.stdoutData : found->record.stderrData;
    const QByteArray page = data.mid(std::min<qsizetype>(*offset, data.size()), *limit);
    const qint64 next = std::min<qint64>(*offset, data.size()) + page.size();
    return QJsonObject{{QStringLiteral("stream"), *stream},
                       {QStringLiteral("offset"), *offset},
                       {QStringLiteral("data"), QString::fromLatin1(page.toBase64())},
                       {QStringLiteral("next_offset"), next},
                       {QStringLiteral("total"), data.size()},
                       {QStringLiteral("eof"), next >= data.size()}};
}

// Answers when the run finishes (DaemonApi), or now for a run that already has.
void wait(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto runId = requireString(params, QStringLiteral("run_id"));
    if (!runId)
        return respond(fail(runId.error()));
    if (context.manager.isRunActive(*runId)) {
        context.waiters.insert(*runId, std::move(respond));
        return;
    }
    auto run = context.manager.run(*runId);
    if (!run)
        return respond(fail(run.error()));
    respond(wrap(QStringLiteral("run"), runToJson(*run)));
}

} // namespace

void addRunMethods(MethodTable &table)
{
    table.addForClient(QStringLiteral("run.exec"),
                       {QStringLiteral("container"), QStringLiteral("command"), QStringLiteral("language"),
                        QStringLiteral("code"), QStringLiteral("stdin"), QStringLiteral("stdin_open"),
                        QStringLiteral("timeout_s"), QStringLiteral("idempotency_key")},
                       exec);
    table.add(QStringLiteral("run.stdin"),
              {QStringLiteral("run_id"), QStringLiteral("data"), QStringLiteral("eof")}, writeStdin);
    table.add(QStringLiteral("run.cancel"), {QStringLiteral("run_id")}, cancel);
    table.add(QStringLiteral("run.output"),
              {QStringLiteral("run_id"), QStringLiteral("stream"), QStringLiteral("offset"),
               QStringLiteral("limit")},
              output);
    table.add(QStringLiteral("run.get"), {QStringLiteral("run_id")}, get);
    table.addDeferred(QStringLiteral("run.wait"), {QStringLiteral("run_id")}, wait);
}

} // namespace Cordon::Api
