// SPDX-License-Identifier: MIT
// network.check: what the daemon would make of each allowlist entry, before anything is created or changed.
// Each entry goes through the reader that container.create, container.update_network and the organisation
// file use (Policy::domainRuleFromJson) and, when valid, through the organisation's checkNarrows: the
// workbench asks this while the user types, so there is no second validator to drift from the daemon's.
#pragma once

#include "core/result.h"
#include "network/orgpolicy.h"

#include <QJsonArray>
#include <QJsonObject>

namespace Cordon::Api {

// One answer per entry, in order: {"ok": true, "rule": {canonical object form}} for a valid entry, plus
// "outside_organisation": {code, message, hint} when org does not cover it; {"ok": false, "error": {code,
// message, hint}} for an invalid one (also the second of two equal rules). "ok" on the whole answer is true
// when every entry is valid and inside org. Fails (policy.wrong_type, policy.out_of_range) only when
// `entries` is not an array or has more than Policy::MaxAllowedDomains entries.
Result<QJsonObject> checkAllowlistEntries(const QJsonValue &entries, const Network::OrgPolicy &org);

} // namespace Cordon::Api
