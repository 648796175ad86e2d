// SPDX-License-Identifier: MIT
#include "core/eventwords.h"

#include "core/formatting.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

namespace Cordon::EventWords {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("EventWords", text);
}

QString shortHash(const QJsonValue &hash)
{
    return hash.toString().left(12);
}

QString runOutcome(const QJsonObject &detail)
{
    const QString errorClass = detail.value(QStringLiteral("error_class")).toString();
    const int signal = detail.value(QStringLiteral("signal")).toInt();
    const QString how = signal > 0 ? tr("signal %1").arg(signal)
                                   : tr("exit %1").arg(detail.value(QStringLiteral("exit_code")).toInt());
    return tr("%1 · %2 (%3)")
        .arg(errorClass, how, Format::duration(detail.value(QStringLiteral("wall_ms")).toInteger()));
}

// "outputs/deploy.env": the file as the user downloads it.
QString scopedPath(const QJsonObject &detail)
{
    const QString scope = detail.value(QStringLiteral("scope")).toString();
    const QString path = Format::displayName(detail.value(QStringLiteral("path")).toString());
    return scope.isEmpty() ? path : scope + QLatin1Char('/') + path;
}

// "aws.access_key_id, private_key.openssh": the scan's rule ids, as the findings list shows them.
QString scanRules(const QJsonObject &detail)
{
    QStringList rules;
    for (const QJsonValue &rule : detail.value(QStringLiteral("rules")).toArray())
        rules.append(Format::displayName(rule.toString()));
    return rules.join(QStringLiteral(", "));
}

QString artifact(const QString &kind, const QJsonObject &detail)
{
    const QString file = scopedPath(detail);
    const QString rules = scanRules(detail);
    if (kind == QLatin1String("artifact.override")) {
        // What a reviewer reads: who downloaded what despite the scan, and the reason they gave.
        const QString reason = Format::displayName(detail.value(QStringLiteral("reason")).toString());
        return tr("Downloaded anyway despite the artifact scan: %1 (%2); the reason given: “%3”")
            .arg(file, rules, reason);
    }
    const qint64 count = detail.value(QStringLiteral("findings")).toInteger();
    const QString findings = count == 1 ? tr("1 finding") : tr("%1 findings").arg(count);
    const QString action = detail.value(QStringLiteral("action")).toString();
    QString what;
    if (action == QLatin1String("blocked"))
        what = tr("Kept back from a download by the artifact scan");
    else if (action == QLatin1String("redacted"))
        what = tr("Downloaded with the artifact scan's findings redacted");
    else if (action == QLatin1String("overridden"))
        what = tr("Downloaded although the artifact scan would keep it back");
    else
        what = tr("Downloaded with a warning from the artifact scan");
    return tr("%1: %2, %3 (%4)").arg(what, file, findings, rules);
}

// "Go", "No-Go": a verdict or a sign-off's decision as the report says it.
QString verdictWords(const QString &verdict)
{
    if (verdict == QLatin1String("go"))
        return tr("Go");
    if (verdict == QLatin1String("not_applicable"))
        return tr("Not applicable");
    return tr("No-Go");
}

QString audit(const QString &kind, const QJsonObject &detail)
{
    const QString id = detail.value(QStringLiteral("id")).toString();
    if (kind == QLatin1String("audit.saved"))
        return tr("Go/No-Go audit %1 kept: %2, %3 of %4 rows Go, policy %5")
            .arg(id, verdictWords(detail.value(QStringLiteral("verdict")).toString()))
            .arg(detail.value(QStringLiteral("go_rows")).toInteger())
            .arg(detail.value(QStringLiteral("rows")).toInteger())
            .arg(shortHash(detail.value(QStringLiteral("policy_version"))));
    const QString role = Format::displayName(detail.value(QStringLiteral("role")).toString());
    const QString who = Format::displayName(detail.value(QStringLiteral("name")).toString());
    return tr("Go/No-Go audit %1 signed off %2 by %3 on %4 with key %5")
        .arg(id, verdictWords(detail.value(QStringLiteral("decision")).toString()),
             role.isEmpty() ? who : tr("%1 (%2)").arg(who, role),
             Format::displayName(detail.value(QStringLiteral("date")).toString()),
             detail.value(QStringLiteral("key_id")).toString());
}

} // namespace

QString network(const QJsonObject &detail)
{
    // Rows the network ledger wrote for many decisions (containers/networkledger.h).
    if (detail.value(QStringLiteral("suppressed")).toBool())
        return Format::displayName(detail.value(QStringLiteral("reason")).toString());
    const qint64 count = detail.value(QStringLiteral("count")).toInteger(1);
    if (count > 1) {
        QJsonObject one = detail;
        one.remove(QStringLiteral("count"));
        return tr("%1 times: %2").arg(count).arg(network(one));
    }
    const QString target = tr("%1 %2:%3")
                               .arg(detail.value(QStringLiteral("method")).toString(),
                                    Format::displayName(detail.value(QStringLiteral("host")).toString()))
                               .arg(detail.value(QStringLiteral("port")).toInt());
    const QString decision = detail.value(QStringLiteral("decision")).toString();
    const QString reason = Format::displayName(detail.value(QStringLiteral("reason")).toString());
    const int status = detail.value(QStringLiteral("status")).toInt();
    if (decision == QLatin1String("allowed"))
        return tr("%1 allowed (%2, ↑ %3 ↓ %4, %5)")
            .arg(target)
            .arg(status)
            .arg(Format::bytes(detail.value(QStringLiteral("bytes_up")).toInteger()),
                 Format::bytes(detail.value(QStringLiteral("bytes_down")).toInteger()),
                 Format::duration(detail.value(QStringLiteral("duration_ms")).toInteger()));
    const QString verdict = decision == QLatin1String("denied") ? tr("denied") : tr("failed");
    return reason.isEmpty() ? tr("%1 %2 (%3)").arg(target, verdict).arg(status)
                            : tr("%1 %2: %3 (%4)").arg(target, verdict, reason).arg(status);
}

QString describe(const QJsonObject &event)
{
    const QString kind = event.value(QStringLiteral("kind")).toString();
    const QJsonObject detail = event.value(QStringLiteral("detail")).toObject();
    const QString run = event.value(QStringLiteral("run_id")).toString();
    const QString error = Format::displayName(detail.value(QStringLiteral("error")).toString());
    if (kind == QLatin1String("container.created"))
        return tr("Created under policy %1").arg(shortHash(detail.value(QStringLiteral("policy_version"))));
    if (kind == QLatin1String("container.started"))
        return tr("Started");
    if (kind == QLatin1String("container.stopped"))
        return tr("Stopped; its files are kept");
    const QString reason = Format::displayName(detail.value(QStringLiteral("reason")).toString());
    if (kind == QLatin1String("container.restarted"))
        return reason.isEmpty()
                   ? tr("Started again after the daemon restarted")
                   : tr("Started again from its saved files after the daemon restarted: %1").arg(reason);
    if (kind == QLatin1String("container.restart_failed"))
        return tr("Could not be started again after the daemon restarted: %1").arg(error);
    if (kind == QLatin1String("container.adopted")) {
        const qint64 runs = detail.value(QStringLiteral("runs")).toInteger();
        return runs == 0
                   ? tr("Adopted by the new daemon, as it was: nothing was lost")
                   : tr("Adopted by the new daemon with %1 run(s), their output and outcomes").arg(runs);
    }
    if (kind == QLatin1String("container.adoption_refused"))
        return tr("Not adopted by the new daemon: %1").arg(error);
    if (kind == QLatin1String("container.expiry_deferred"))
        return tr("Its idle time ran out while no daemon ran: kept until %1 (a grace period), unless it is "
                  "used "
                  "or kept alive")
            .arg(Format::dateTime(detail.value(QStringLiteral("expires_at")).toInteger()));
    if (kind == QLatin1String("workspace.save_resumed"))
        return tr("Files saved by the new daemon: the one before ended while it saved them");
    if (kind == QLatin1String("workspace.checkpoint_failed"))
        return tr("A checkpoint of the files to disk failed (the one before is kept): %1").arg(error);
    if (kind == QLatin1String("container.died"))
        return tr("Its init process ended unexpectedly; stopped");
    if (kind == QLatin1String("workspace.saved")) {
        const qint64 leftOut = detail.value(QStringLiteral("left_out")).toInteger();
        const QString saved = tr("Files saved to disk: %1 files, %2")
                                  .arg(detail.value(QStringLiteral("files")).toInteger())
                                  .arg(Format::bytes(detail.value(QStringLiteral("bytes")).toInteger()));
        return leftOut == 0
                   ? saved
                   : tr("%1; %2 entries left out (devices, sockets, unreadable)").arg(saved).arg(leftOut);
    }
    if (kind == QLatin1String("workspace.save_failed"))
        return tr("Files could not be saved to disk (the copy saved before is kept): %1").arg(error);
    if (kind == QLatin1String("container.expiring_soon"))
        return tr("Expires at %1 unless it is used or kept alive")
            .arg(Format::dateTime(detail.value(QStringLiteral("expires_at")).toInteger()));
    if (kind == QLatin1String("container.kept_alive"))
        return tr("Kept alive: now expires at %1")
            .arg(Format::dateTime(detail.value(QStringLiteral("expires_at")).toInteger()));
    if (kind == QLatin1String("container.expired"))
        return tr("Expired after its idle time; its files were removed");
    if (kind == QLatin1String("container.deleted"))
        return tr("Deleted with its files");
    if (kind == QLatin1String("container.deletion_receipt")) {
        const bool gone = detail.value(QStringLiteral("workspace_gone")).toBool() &&
                          detail.value(QStringLiteral("cgroups_gone")).toBool() &&
                          detail.value(QStringLiteral("processes_after")).toInteger() == 0;
        const QString removed =
            tr("Deletion receipt: %1 files, %2 removed")
                .arg(detail.value(QStringLiteral("files_total")).toInteger())
                .arg(Format::bytes(detail.value(QStringLiteral("bytes_total")).toInteger()));
        return gone ? tr("%1; workspace, cgroup and processes confirmed gone").arg(removed)
                    : tr("%1; something was left behind").arg(removed);
    }
    if (kind == QLatin1String("container.oom_kill"))
        return tr("Out of memory: the kernel killed a process (%1 so far)")
            .arg(detail.value(QStringLiteral("oom_kills")).toInteger());
    if (kind == QLatin1String("container.pids_limit_reached"))
        return tr("Process limit of %1 reached: %2 forks refused so far")
            .arg(detail.value(QStringLiteral("limit")).toInteger())
            .arg(detail.value(QStringLiteral("refused_forks")).toInteger());
    if (kind == QLatin1String("run.started")) {
        const QString language = detail.value(QStringLiteral("language")).toString();
        QString text = language.isEmpty() ? tr("Run %1 started (a command)").arg(run)
                                          : tr("Run %1 started (%2)").arg(run, language);
        QStringList secrets;
        for (const QJsonValue &name : detail.value(QStringLiteral("secrets")).toArray())
            secrets.append(Format::displayName(name.toString()));
        if (!secrets.isEmpty())
            text += tr(" with secret(s) %1").arg(secrets.join(QStringLiteral(", ")));
        return text;
    }
    if (kind == QLatin1String("run.finished"))
        return tr("Run %1 ended: %2").arg(run, runOutcome(detail));
    if (kind == QLatin1String("run.cancelled"))
        return tr("Run %1 stopped on request").arg(run);
    if (kind == QLatin1String("run.interrupted"))
        return tr("Run %1 interrupted: %2").arg(run, reason);
    if (kind == QLatin1String("file.uploaded")) {
        const QString uploaded =
            tr("Uploaded %1 (%2)")
                .arg(Format::displayName(detail.value(QStringLiteral("path")).toString()),
                     Format::bytes(detail.value(QStringLiteral("size")).toInteger()));
        const QJsonObject pseudonymized = detail.value(QStringLiteral("pseudonymized")).toObject();
        if (pseudonymized.isEmpty())
            return uploaded;
        QStringList columns;
        for (const QJsonValue &column : pseudonymized.value(QStringLiteral("columns")).toArray())
            columns.append(Format::displayName(column.toString()));
        return tr("%1, pseudonymised: %2 with key %3 (%4)")
            .arg(uploaded, columns.join(QStringLiteral(", ")),
                 Format::displayName(pseudonymized.value(QStringLiteral("key")).toString()),
                 pseudonymized.value(QStringLiteral("key_id")).toString());
    }
    if (kind == QLatin1String("file.downloaded")) {
        const qint64 files = detail.value(QStringLiteral("files")).toInteger();
        const qint64 refused = detail.value(QStringLiteral("refused")).toInteger();
        const QString scope = detail.value(QStringLiteral("scope")).toString();
        if (files == 0)
            return refused == 0 ? tr("Downloaded nothing from %1: it was empty").arg(scope)
                                : tr("Downloaded nothing from %1: %2 refused").arg(scope).arg(refused);
        return tr("Downloaded from %1: %2 copied, %3 refused").arg(scope).arg(files).arg(refused);
    }
    if (kind == QLatin1String("file.deleted"))
        return tr("Deleted %1/%2")
            .arg(detail.value(QStringLiteral("scope")).toString(),
                 Format::displayName(detail.value(QStringLiteral("path")).toString()));
    if (kind == QLatin1String("network.allowed") || kind == QLatin1String("network.denied") ||
        kind == QLatin1String("network.error"))
        return network(detail);
    if (kind == QLatin1String("network.policy_changed"))
        return tr("Network policy changed: now policy %1")
            .arg(shortHash(detail.value(QStringLiteral("policy_version"))));
    if (kind == QLatin1String("network.proxy_failed"))
        return tr("The egress proxy could not be attached: %1").arg(error);
    if (kind == QLatin1String("network.org_policy_reloaded")) {
        const qint64 rules = detail.value(QStringLiteral("rules")).toInteger();
        const QString path = detail.value(QStringLiteral("path")).toString();
        return rules == 1 ? tr("Organisation allowlist changed: 1 rule, from %1").arg(path)
                          : tr("Organisation allowlist changed: %1 rules, from %2").arg(rules).arg(path);
    }
    if (kind == QLatin1String("network.org_policy_invalid"))
        return tr("Organisation allowlist refused, the previous one stays: %1").arg(error);
    if (kind == QLatin1String("daemon.runs_interrupted"))
        return tr("%1 run(s) no container held any more were interrupted when the daemon started")
            .arg(detail.value(QStringLiteral("count")).toInteger());
    if (kind == QLatin1String("secret.set") || kind == QLatin1String("secret.replaced") ||
        kind == QLatin1String("secret.removed")) {
        const QString name = Format::displayName(detail.value(QStringLiteral("name")).toString());
        if (kind == QLatin1String("secret.removed") && detail.value(QStringLiteral("pseudonym_key")).toBool())
            return tr("Pseudonym key %1 removed from the store: its pseudonyms cannot be made again")
                .arg(name);
        if (kind == QLatin1String("secret.removed"))
            return tr("Secret %1 removed from the store").arg(name);
        const QString fingerprint = detail.value(QStringLiteral("fingerprint")).toString();
        return kind == QLatin1String("secret.set") ? tr("Secret %1 set (%2)").arg(name, fingerprint)
                                                   : tr("Secret %1 set anew (%2)").arg(name, fingerprint);
    }
    if (kind == QLatin1String("artifact.finding") || kind == QLatin1String("artifact.override"))
        return artifact(kind, detail);
    if (kind == QLatin1String("audit.saved") || kind == QLatin1String("audit.signed"))
        return audit(kind, detail);
    if (kind == QLatin1String("daemon.time_scale")) {
        const double scale = detail.value(QStringLiteral("scale")).toDouble();
        return scale > 1 ? tr("The demo clock now runs %1× faster for demo containers").arg(scale)
                         : tr("The demo clock is back to real time");
    }
    if (kind == QLatin1String("container.demo_clock"))
        return detail.value(QStringLiteral("demo")).toBool()
                   ? tr("Marked as a demo: follows the demo clock (%1×)")
                         .arg(detail.value(QStringLiteral("time_scale")).toDouble())
                   : tr("No longer a demo: back on real time");
    // A kind this version does not know: its detail as compact JSON, escaped like any other text from it.
    return Format::displayName(QString::fromUtf8(QJsonDocument(detail).toJson(QJsonDocument::Compact)));
}

} // namespace Cordon::EventWords
