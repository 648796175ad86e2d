// SPDX-License-Identifier: MIT
// A throwaway TLS identity for the audit's echo upstream (echoupstream.h): a self-signed certificate for
// "localhost" and 127.0.0.1, valid for a day, with its key. The audit's private cordond trusts it for
// upstreams
// (--upstream-ca), so that its proxy terminates the sandbox's TLS to the echo and opens its own to it, as it
// does for a real domain. Made through the libcrypto the report signatures already load (crypto/): the
// proxy's InterceptionAuthority lives in the engine, which the audit runner (linked by the workbench) may
// not link.
#pragma once

#include "core/result.h"

#include <QByteArray>

namespace Cordon::Audit {

struct LoopbackCertificate
{
    QByteArray certificatePem;
    QByteArray keyPem; // EC P-256, unencrypted: it lives only in memory and dies with the audit
};

// audit.echo_certificate when libcrypto is missing or fails.
Result<LoopbackCertificate> makeLoopbackCertificate();

} // namespace Cordon::Audit
