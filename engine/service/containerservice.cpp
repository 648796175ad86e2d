// SPDX-License-Identifier: MIT
#include "service/containerservice.h"

#include "containers/workspace.h"
#include "policy/containerpolicy.h"
#include "service/allowlistcheck.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <unistd.h>

namespace Cordon::Service {

namespace {

constexpr qsizetype MaxBase64Bytes = 12 * 1024 * 1024;

Error invalidParams(const QString &message)
{
    return Error(QStringLiteral("protocol.invalid_params"), message);
}

// Strict parameter readers: a wrong type is an error that names the parameter, never a silent default.
Result<QString> requireString(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (!value.isString() || value.toString().isEmpty())
        return fail(invalidParams(QStringLiteral("`%1` must be a non-empty string").arg(key)));
    return value.toString();
}

Result<QString> optionalString(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return QString();
    if (!value.isString())
        return fail(invalidParams(QStringLiteral("`%1` must be a string").arg(key)));
    return value.toString();
}

Result<qint64> optionalInteger(const QJsonObject &params, const QString &key, qint64 fallback, qint64 min,
                               qint64 max)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return fallback;
    const double number = value.toDouble(-1e300);
    if (!value.isDouble() || number != static_cast<double>(static_cast<qint64>(number)) ||
        number < double(min) || number > double(max))
        return fail(invalidParams(
            QStringLiteral("`%1` must be an integer between %2 and %3").arg(key).arg(min).arg(max)));
    return static_cast<qint64>(number);
}

Result<bool> optionalBool(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return false;
    if (!value.isBool())
        return fail(invalidParams(QStringLiteral("`%1` must be true or false").arg(key)));
    return value.toBool();
}

// file.download's `existing`: what a name already at the destination gets.
Result<Files::ExistingName> existingNames(const QJsonObject &params)
{
    auto word = optionalString(params, QStringLiteral("existing"));
    if (!word)
        return fail(word.error());
    if (word->isEmpty() || *word == QLatin1String("refuse"))
        return Files::ExistingName::Refuse;
    if (*word == QLatin1String("replace"))
        return Files::ExistingName::Replace;
    if (*word == QLatin1String("keep_both"))
        return Files::ExistingName::KeepBoth;
    return fail(invalidParams(QStringLiteral("`existing` must be refuse, replace or keep_both")));
}

Result<std::optional<QByteArray>> optionalBase64(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return std::optional<QByteArray>();
    if (!value.isString() || value.toString().size() > MaxBase64Bytes)
        return fail(invalidParams(QStringLiteral("`%1` must be base64 text of at most 9 MiB").arg(key)));
    const auto decoded =
        QByteArray::fromBase64Encoding(value.toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return fail(invalidParams(QStringLiteral("`%1` is not valid base64").arg(key)));
    return std::optional<QByteArray>(*decoded);
}

QJsonObject wrap(const QString &key, const Result<QJsonObject> &value)
{
    return QJsonObject{{key, *value}};
}

} // namespace

ContainerService::ContainerService(Containers::ContainerManager &manager, Store::HistoryStore &store,
                                   Daemon::ControlServer &server, QObject *parent)
    : QObject(parent), m_manager(manager), m_store(store), m_server(server)
{
    m_uptime.start();
    m_server.setHelloExtras({{QStringLiteral("time_scale"), m_manager.timeScale()}});
    m_server.setSubscribeBacklogProvider([this](const QStringList &topics, const QString &container) {
        QJsonObject backlog;
        if (topics.contains(QStringLiteral("memory")))
            backlog.insert(QStringLiteral("memory_backlog"), m_manager.memoryBacklog(container));
        if (topics.contains(QStringLiteral("containers")))
            backlog.insert(QStringLiteral("containers"), m_manager.list(false));
        return backlog;
    });
    wireEvents();
}

void ContainerService::wireEvents()
{
    using Containers::ContainerManager;
    connect(&m_manager, &ContainerManager::containerChanged, this, [this](const QJsonObject &container) {
        m_server.publish(QStringLiteral("containers"), container.value(QStringLiteral("id")).toString(),
                         QStringLiteral("container.changed"), {{QStringLiteral("container"), container}});
    });
    connect(&m_manager, &ContainerManager::expiringSoon, this, [this](const QString &id, qint64 expiresAt) {
        m_server.publish(QStringLiteral("containers"), id, QStringLiteral("container.expiring_soon"),
                         {{QStringLiteral("container"), id}, {QStringLiteral("expires_at"), expiresAt}});
    });
    connect(&m_manager, &ContainerManager::runStarted, this, [this](const QJsonObject &run) {
        m_server.publish(QStringLiteral("runs"), run.value(QStringLiteral("container")).toString(),
                         QStringLiteral("run.started"), {{QStringLiteral("run"), run}});
    });
    connect(&m_manager, &ContainerManager::runOutput, this,
            [this](const QString &runId, const QString &container, const QString &stream,
                   const QByteArray &chunk) {
                m_server.publish(QStringLiteral("runs"), container, QStringLiteral("run.output"),
                                 {{QStringLiteral("run_id"), runId},
                                  {QStringLiteral("container"), container},
                                  {QStringLiteral("stream"), stream},
                                  {QStringLiteral("data"), QString::fromLatin1(chunk.toBase64())}});
            });
    connect(&m_manager, &ContainerManager::runFinished, this, [this](const QJsonObject &run) {
        const QString runId = run.value(QStringLiteral("id")).toString();
        m_server.publish(QStringLiteral("runs"), run.value(QStringLiteral("container")).toString(),
                         QStringLiteral("run.finished"), {{QStringLiteral("run"), run}});
        const QList<Respond> waiters = m_waiters.values(runId);
        m_waiters.remove(runId);
        for (const Respond &respond : waiters)
            respond(QJsonObject{{QStringLiteral("run"), run}});
    });
    connect(&m_manager, &ContainerManager::memorySampled, this,
            [this](const QString &id, const QJsonObject &sample) {
                m_server.publish(QStringLiteral("memory"), id, QStringLiteral("memory.sample"), sample);
            });
    connect(&m_manager, &ContainerManager::eventRecorded, this, [this](const QJsonObject &event) {
        m_server.publish(QStringLiteral("events"), event.value(QStringLiteral("container")).toString(),
                         QStringLiteral("event"), event);
    });
}

void ContainerService::handleRequest(const Daemon::ClientInfo &, const QString &method,
                                     const QJsonObject &params, Respond respond)
{
    if (method == QLatin1String("run.wait")) {
        auto runId = requireString(params, QStringLiteral("run_id"));
        if (!runId)
            return respond(fail(runId.error()));
        if (m_manager.isRunActive(*runId)) {
            m_waiters.insert(*runId, std::move(respond));
            return;
        }
        auto run = m_manager.runJson(*runId);
        return respond(run ? Result<QJsonObject>(wrap(QStringLiteral("run"), run)) : fail(run.error()));
    }
    if (method == QLatin1String("daemon.shutdown")) {
        respond(QJsonObject{});
        QMetaObject::invokeMethod(this, &ContainerService::shutdownRequested, Qt::QueuedConnection);
        return;
    }
    respond(handleNow(method, params));
}

Result<QJsonObject> ContainerService::handleNow(const QString &method, const QJsonObject &params)
{
    using Result = Cordon::Result<QJsonObject>;
    auto containerCall = [&](auto call) -> Result {
        auto id = requireString(params, QStringLiteral("id"));
        if (!id)
            return fail(id.error());
        auto container = (m_manager.*call)(*id);
        if (!container)
            return fail(container.error());
        return wrap(QStringLiteral("container"), container);
    };

    if (method == QLatin1String("daemon.status")) {
        QJsonObject counts;
        const QHash<QString, int> byState = m_manager.countByState();
        for (auto it = byState.cbegin(); it != byState.cend(); ++it)
            counts.insert(it.key(), it.value());
        return QJsonObject{{QStringLiteral("pid"), static_cast<qint64>(::getpid())},
                           {QStringLiteral("uptime_s"), m_uptime.elapsed() / 1000},
                           {QStringLiteral("time_scale"), m_manager.timeScale()},
                           {QStringLiteral("containers"), counts},
                           {QStringLiteral("cgroup"), m_manager.cgroupDescription()},
                           {QStringLiteral("data_dir"), Containers::dataDirectory()},
                           {QStringLiteral("version"), QCoreApplication::applicationVersion()}};
    }
    if (method == QLatin1String("daemon.set_time_scale")) {
        const QJsonValue scale = params.value(QStringLiteral("scale"));
        if (!scale.isDouble())
            return fail(invalidParams(QStringLiteral("`scale` must be a number between 1 and 3600")));
        CORDON_TRY(m_manager.setTimeScale(scale.toDouble()));
        m_server.setHelloExtras({{QStringLiteral("time_scale"), m_manager.timeScale()}});
        return QJsonObject{{QStringLiteral("time_scale"), m_manager.timeScale()}};
    }
    if (method == QLatin1String("container.create")) {
        const QJsonValue policyValue = params.value(QStringLiteral("policy"));
        if (!policyValue.isUndefined() && !policyValue.isObject())
            return fail(invalidParams(QStringLiteral("`policy` must be an object")));
        QJsonObject policyObject = policyValue.toObject();
        // A policy without a name is named here, where "not given" can still be told from the default.
        if (!policyObject.contains(QStringLiteral("name")))
            policyObject.insert(QStringLiteral("name"), m_manager.unusedName());
        auto policy = Policy::ContainerPolicy::fromJsonObject(policyObject);
        if (!policy)
            return fail(policy.error());
        auto container = m_manager.create(*policy);
        if (!container)
            return fail(container.error());
        return wrap(QStringLiteral("container"), container);
    }
    if (method == QLatin1String("container.list")) {
        auto includeDeleted = optionalBool(params, QStringLiteral("include_deleted"));
        if (!includeDeleted)
            return fail(includeDeleted.error());
        return QJsonObject{{QStringLiteral("containers"), m_manager.list(*includeDeleted)}};
    }
    if (method == QLatin1String("container.get"))
        return containerCall(&Containers::ContainerManager::get);
    if (method == QLatin1String("container.stop"))
        return containerCall(&Containers::ContainerManager::stop);
    if (method == QLatin1String("container.start"))
        return containerCall(&Containers::ContainerManager::start);
    if (method == QLatin1String("container.delete"))
        return containerCall(&Containers::ContainerManager::remove);
    if (method == QLatin1String("container.keepalive"))
        return containerCall(&Containers::ContainerManager::keepAlive);
    if (method == QLatin1String("run.exec"))
        return execRun(params);
    if (method == QLatin1String("run.stdin")) {
        auto runId = requireString(params, QStringLiteral("run_id"));
        auto data = optionalBase64(params, QStringLiteral("data"));
        auto eof = optionalBool(params, QStringLiteral("eof"));
        if (!runId || !data || !eof)
            return fail(!runId ? runId.error() : !data ? data.error() : eof.error());
        CORDON_TRY(m_manager.writeStdin(*runId, data->value_or(QByteArray()), *eof));
        return QJsonObject{};
    }
    if (method == QLatin1String("run.cancel") || method == QLatin1String("run.get")) {
        auto runId = requireString(params, QStringLiteral("run_id"));
        if (!runId)
            return fail(runId.error());
        auto run =
            method == QLatin1String("run.cancel") ? m_manager.cancel(*runId) : m_manager.runJson(*runId);
        if (!run)
            return fail(run.error());
        // run.get carries the policy itself, not only its hash: a reviewer reads what the run ran under, and
        // an exported run keeps it (the stored text is canonical JSON, written by the daemon).
        if (method == QLatin1String("run.get")) {
            const QString version = run->value(QStringLiteral("policy_version")).toString();
            if (!version.isEmpty()) {
                if (auto policy = m_store.policyJson(version); policy && !policy->isEmpty())
                    run->insert(QStringLiteral("policy"), QJsonDocument::fromJson(*policy).object());
            }
        }
        return wrap(QStringLiteral("run"), run);
    }
    if (method == QLatin1String("file.upload")) {
        auto container = requireString(params, QStringLiteral("container"));
        auto name = requireString(params, QStringLiteral("name"));
        auto path = optionalString(params, QStringLiteral("path"));
        auto content = optionalBase64(params, QStringLiteral("content"));
        if (!container || !name || !path || !content)
            return fail(!container ? container.error()
                        : !name    ? name.error()
                        : !path    ? path.error()
                                   : content.error());
        if (path->isEmpty() == !content->has_value())
            return fail(invalidParams(QStringLiteral("give exactly one of `path` and `content`")));
        auto file = m_manager.upload(*container, *name, *path, *content);
        if (!file)
            return fail(file.error());
        return wrap(QStringLiteral("file"), file);
    }
    if (method == QLatin1String("file.list") || method == QLatin1String("file.download") ||
        method == QLatin1String("file.delete")) {
        auto container = requireString(params, QStringLiteral("container"));
        auto scope = optionalString(params, QStringLiteral("scope"));
        auto path = optionalString(params, QStringLiteral("path"));
        if (!container || !scope || !path)
            return fail(!container ? container.error() : !scope ? scope.error() : path.error());
        if (method == QLatin1String("file.list"))
            return m_manager.listFiles(*container, *scope);
        if (method == QLatin1String("file.delete")) {
            CORDON_TRY(m_manager.deleteFile(*container, scope->isEmpty() ? QStringLiteral("outputs") : *scope,
                                            *path));
            return QJsonObject{};
        }
        auto destination = requireString(params, QStringLiteral("destination"));
        auto existing = existingNames(params);
        if (!destination || !existing)
            return fail(!destination ? destination.error() : existing.error());
        return m_manager.download(*container, *scope, *path, *destination, *existing);
    }
    if (method == QLatin1String("memory.processes")) {
        auto container = requireString(params, QStringLiteral("container"));
        if (!container)
            return fail(container.error());
        auto processes = m_manager.processes(*container);
        if (!processes)
            return fail(processes.error());
        return QJsonObject{{QStringLiteral("processes"), *processes}};
    }
    if (method == QLatin1String("network.org_policy"))
        return m_manager.orgPolicyJson();
    if (method == QLatin1String("network.reload_org_policy"))
        return m_manager.reloadOrgPolicy();
    if (method == QLatin1String("network.check") || method == QLatin1String("network.set_org_policy")) {
        const QJsonValue domains = params.value(QStringLiteral("allowed_domains"));
        if (!domains.isArray())
            return fail(invalidParams(QStringLiteral(
                "`allowed_domains` must be an array of allowlist entries (strings or rule objects)")));
        if (method == QLatin1String("network.set_org_policy"))
            return m_manager.setOrgPolicy(domains.toArray());
        auto checked = checkAllowlistEntries(domains, m_manager.orgPolicy());
        if (!checked)
            return fail(checked.error());
        checked->insert(QStringLiteral("organisation"), m_manager.orgPolicyJson());
        return checked;
    }
    if (method == QLatin1String("network.summary")) {
        auto container = requireString(params, QStringLiteral("container"));
        if (!container)
            return fail(container.error());
        return m_manager.networkSummary(*container);
    }
    if (method == QLatin1String("container.update_network")) {
        auto id = requireString(params, QStringLiteral("id"));
        if (!id)
            return fail(id.error());
        auto network = Policy::NetworkPolicy::fromJsonValue(params.value(QStringLiteral("network_policy")),
                                                            QStringLiteral("network_policy"));
        if (!network)
            return fail(network.error());
        auto container = m_manager.updateNetwork(*id, *network);
        if (!container)
            return fail(container.error());
        return wrap(QStringLiteral("container"), container);
    }
    if (method == QLatin1String("history.runs"))
        return historyRuns(params);
    if (method == QLatin1String("history.events"))
        return historyEvents(params);
    if (method == QLatin1String("history.purge")) {
        auto days = optionalInteger(params, QStringLiteral("older_than_days"), -1, 0, 36500);
        if (!days)
            return fail(days.error());
        if (*days < 0)
            return fail(invalidParams(QStringLiteral("`older_than_days` is required")));
        auto purged = m_store.purgeOlderThan(QDateTime::currentMSecsSinceEpoch() - *days * 86400000LL);
        if (!purged)
            return fail(purged.error());
        return QJsonObject{{QStringLiteral("runs"), purged->runs},
                           {QStringLiteral("events"), purged->events},
                           {QStringLiteral("files"), purged->files},
                           {QStringLiteral("containers"), purged->containers}};
    }
    return fail(QStringLiteral("protocol.unknown_method"), QStringLiteral("unknown method `%1`").arg(method));
}

Result<QJsonObject> ContainerService::execRun(const QJsonObject &params)
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
    auto run = m_manager.exec(*container, request, *key);
    if (!run)
        return fail(run.error());
    return wrap(QStringLiteral("run"), run);
}

Result<QJsonObject> ContainerService::historyRuns(const QJsonObject &params) const
{
    Store::RunFilter filter;
    auto container = optionalString(params, QStringLiteral("container"));
    auto errorClass = optionalString(params, QStringLiteral("error_class"));
    auto since =
        optionalInteger(params, QStringLiteral("since"), 0, 0, std::numeric_limits<qint64>::max() / 2);
    auto until =
        optionalInteger(params, QStringLiteral("until"), 0, 0, std::numeric_limits<qint64>::max() / 2);
    auto limit = optionalInteger(params, QStringLiteral("limit"), 50, 1, 500);
    auto offset = optionalInteger(params, QStringLiteral("offset"), 0, 0, 1LL << 40);
    auto withOutput = optionalBool(params, QStringLiteral("with_output"));
    if (!container || !errorClass || !since || !until || !limit || !offset || !withOutput)
        return fail(
            invalidParams(QStringLiteral("history.runs takes container, error_class (strings), since, until, "
                                         "limit (1..500), offset (integers) and with_output (bool)")));
    filter.containerId = *container;
    filter.errorClass = *errorClass;
    filter.since = *since;
    filter.until = *until;
    filter.limit = static_cast<int>(*limit);
    filter.offset = static_cast<int>(*offset);
    auto page = m_store.runs(filter, *withOutput);
    if (!page)
        return fail(page.error());
    QJsonArray runs;
    for (const Store::RunRecord &run : page->items)
        runs.append(run.toJson(*withOutput));
    return QJsonObject{{QStringLiteral("runs"), runs}, {QStringLiteral("total"), page->total}};
}

Result<QJsonObject> ContainerService::historyEvents(const QJsonObject &params) const
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
    filter.containerId = *container;
    filter.runId = *runId;
    if (kind->endsWith(QLatin1Char('.')))
        filter.kindPrefix = *kind;
    else
        filter.kind = *kind;
    filter.since = *since;
    filter.limit = static_cast<int>(*limit);
    filter.offset = static_cast<int>(*offset);
    auto page = m_store.events(filter);
    if (!page)
        return fail(page.error());
    QJsonArray events;
    for (const Store::EventRecord &event : page->items)
        events.append(event.toJson());
    return QJsonObject{{QStringLiteral("events"), events}, {QStringLiteral("total"), page->total}};
}

} // namespace Cordon::Service
