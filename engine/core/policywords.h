// SPDX-License-Identifier: MIT
// A container policy in sentences a reviewer can check, from the canonical policy JSON the daemon returns
// (container.get's `policy`, docs/policy.md). The CLI's `cordon inspect` and the workbench's Inspect view and
// allowlist panels print these same lines, so both say the same thing about the same policy.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace Cordon::PolicyWords {

struct Line
{
    QString label;        // "Memory", "Processes", ...
    QString text;         // "1 GiB: a run that needs more is killed by the kernel (oom)"
    bool warning = false; // something a reviewer should look at twice
};

// One allowlist rule in the canonical form the daemon returns ({"domain", "ports", "methods",
// "path_prefixes", "allow_private_addresses"}): "pypi.org, ports 80 and 443, any method, any path, this host
// only". Only the daemon parses the string form, so that no client can read a rule differently.
QString rule(const QJsonObject &rule);
// What a rule reaches beyond its own words, for a reviewer: for "*.example.com" that it covers every
// subdomain at any depth but not example.com itself; for allow_private_addresses a warning. Empty when none.
QString ruleCaveat(const QJsonObject &rule);
bool ruleIsRisky(const QJsonObject &rule);

// Every limit the container runs under, one line each: memory, processes, run time, /tmp, workspace, output.
QList<Line> limits(const QJsonObject &policy);
// The network: "Off: no network at all, only loopback", or "Allowlist: N rules, through the egress proxy".
Line network(const QJsonObject &policy);
// The whole policy: name, limits, expiry, network with each rule, mounts, environment names, ptrace.
QList<Line> policy(const QJsonObject &policy);

// The label of the lines policy() gives for allowlist rules, one per rule in the policy's order.
QString ruleLabel();

// "80 and 443", "8443", "80, 443 and 8080".
QString joinedList(const QStringList &items);

} // namespace Cordon::PolicyWords
