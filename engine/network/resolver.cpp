// SPDX-License-Identifier: MIT
#include "network/resolver.h"

#include <QHostInfo>

namespace Cordon::Network {

void HostInfoResolver::lookup(const QString &host, QObject *context,
                              std::function<void(const Resolution &)> done)
{
    const QString name = host.contains(u'.') ? host + u'.' : host;
    QHostInfo::lookupHost(name, context, [done = std::move(done)](const QHostInfo &info) {
        Resolution resolution;
        if (info.error() != QHostInfo::NoError)
            resolution.error = info.errorString();
        else
            resolution.addresses = info.addresses();
        if (resolution.addresses.isEmpty() && resolution.error.isEmpty())
            resolution.error = QStringLiteral("no addresses");
        done(resolution);
    });
}

} // namespace Cordon::Network
