// SPDX-License-Identifier: MIT
// The echo half of credentials.domain_secret: an upstream that hands back the key it was sent must not hand
// it to the sandbox. Shown against the real thing: the audit's private cordond (privatedaemon.h), started
// trusting the echo upstream's certificate (--upstream-ca) with an organisation list that allows it on the
// host's loopback, a container holding a domain secret for localhost, and curl or Python inside it making
// the requests through the proxy. The user's own daemon cannot be used for it: it neither trusts a test
// certificate nor reaches the loopback, as it should not.
#pragma once

#include "auditrunner/auditrows.h"

#include <QString>

namespace Cordon::Audit {

// Runs the echo check, its findings as checks and evidence of `row` (a failure that stops it is a failed
// check); an empty string once it ran, else why it cannot apply on this host (nothing in the sandbox can
// make an HTTPS request, or the host's organisation list does not allow the loopback upstream).
QString checkEchoedDomainSecret(RowRecorder &row, AuditContext &context);

} // namespace Cordon::Audit
