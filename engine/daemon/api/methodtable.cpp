// SPDX-License-Identifier: MIT
#include "daemon/api/methodtable.h"

#include <algorithm>

namespace Cordon::Api {

void MethodTable::add(const QString &method, Handler handler)
{
    addDeferred(method,
                [handler = std::move(handler)](ApiContext &context, const QJsonObject &params,
                                               Respond respond) { respond(handler(context, params)); });
}

void MethodTable::addDeferred(const QString &method, DeferredHandler handler)
{
    addForClient(method, [handler = std::move(handler)](ApiContext &context, const Daemon::ClientInfo &,
                                                        const QJsonObject &params, Respond respond) {
        handler(context, params, std::move(respond));
    });
}

void MethodTable::addForClient(const QString &method, ClientHandler handler)
{
    Q_ASSERT(!m_handlers.contains(method));
    m_handlers.insert(method, std::move(handler));
}

void MethodTable::call(ApiContext &context, const Daemon::ClientInfo &client, const QString &method,
                       const QJsonObject &params, Respond respond) const
{
    const auto found = m_handlers.constFind(method);
    if (found == m_handlers.cend())
        return respond(fail(QStringLiteral("protocol.unknown_method"),
                            QStringLiteral("unknown method `%1`").arg(method)));
    found.value()(context, client, params, std::move(respond));
}

QStringList MethodTable::methods() const
{
    QStringList names = m_handlers.keys();
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace Cordon::Api
