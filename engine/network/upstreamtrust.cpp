// SPDX-License-Identifier: MIT
#include "network/upstreamtrust.h"

#include <QSslConfiguration>

namespace Cordon::Network {

const QList<QSslCertificate> &UpstreamTrust::certificates()
{
    if (!m_all)
        m_all = QSslConfiguration::systemCaCertificates() + m_extra;
    return *m_all;
}

} // namespace Cordon::Network
