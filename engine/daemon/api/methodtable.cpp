// SPDX-License-Identifier: MIT
#include "daemon/api/methodtable.h"

#include "core/plainbridge.h"
#include "daemon/api/params.h"
#include "sandbox/quoteuntrusted.h"

#include <algorithm>

namespace Cordon::Api {

namespace {

// A name from the request, quoted, escaped and cut: it may be megabytes long or hold control characters.
QString shown(const QString &name)
{
    return toQt(quoteUntrusted(toPlain(name)));
}

// Every parameter is one the method takes, and none is null: absent is how a parameter is left out.
Result<> checkParameters(const QString &method, const QStringList &accepted, const QJsonObject &params)
{
    for (auto it = params.begin(); it != params.end(); ++it) {
        if (!accepted.contains(it.key()))
            return fail(invalidParams(
                accepted.isEmpty()
                    ? QStringLiteral("%1 takes no parameters; %2 is not one").arg(method, shown(it.key()))
                    : QStringLiteral("%1 does not take %2; it takes %3")
                          .arg(method, shown(it.key()), accepted.join(QStringLiteral(", ")))));
        if (it.value().isNull())
            return fail(
                invalidParams(QStringLiteral("%1 is null; leave a parameter out instead of sending null")
                                  .arg(shown(it.key()))));
    }
    return {};
}

} // namespace

void MethodTable::add(const QString &method, QStringList parameters, Handler handler)
{
    addDeferred(method, std::move(parameters),
                [handler = std::move(handler)](ApiContext &context, const QJsonObject &params,
                                               Respond respond) { respond(handler(context, params)); });
}

void MethodTable::addDeferred(const QString &method, QStringList parameters, DeferredHandler handler)
{
    addForClient(method, std::move(parameters),
                 [handler = std::move(handler)](ApiContext &context, const Daemon::ClientInfo &,
                                                const QJsonObject &params, Respond respond) {
                     handler(context, params, std::move(respond));
                 });
}

void MethodTable::addForClient(const QString &method, QStringList parameters, ClientHandler handler)
{
    Q_ASSERT(!m_handlers.contains(method));
    m_handlers.insert(method, Entry{std::move(parameters), std::move(handler)});
}

void MethodTable::call(ApiContext &context, const Daemon::ClientInfo &client, const QString &method,
                       const QJsonObject &params, Respond respond) const
{
    const auto found = m_handlers.constFind(method);
    if (found == m_handlers.cend())
        return respond(fail(QStringLiteral("protocol.unknown_method"),
                            QStringLiteral("unknown method %1").arg(shown(method))));
    if (const Result<> checked = checkParameters(method, found->parameters, params); !checked)
        return respond(fail(checked.error()));
    found->handler(context, client, params, std::move(respond));
}

namespace {

// The store's answer for an id it does not hold, as the protocol's `WHAT.not_found`.
Result<> known(const Error &lookupError, const QString &what, const QString &id)
{
    if (lookupError.code() != "store.not_found")
        return fail(lookupError);
    return fail(QStringLiteral("%1.not_found").arg(what),
                QStringLiteral("no %1 with id %2").arg(what, shown(id)));
}

} // namespace

Result<> requireKnownContainer(const ApiContext &context, const QString &id)
{
    if (const auto record = context.store.container(id); !record)
        return known(record.error(), QStringLiteral("container"), id);
    return {};
}

Result<> requireKnownRun(const ApiContext &context, const QString &id)
{
    if (const auto record = context.store.run(id); !record)
        return known(record.error(), QStringLiteral("run"), id);
    return {};
}

QStringList MethodTable::methods() const
{
    QStringList names = m_handlers.keys();
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace Cordon::Api
