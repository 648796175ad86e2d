// SPDX-License-Identifier: MIT
// The file system rows: writes allowed where the policy says and refused elsewhere, the host's paths
// invisible, and an artifact that is a symlink or a special file refused at download.
#include "auditrunner/auditrows.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

namespace Cordon::Audit {

namespace {

struct WriteCase
{
    QString path;
    bool allowed;
    QString why;
};

// Where a mount of the policy lands and whether it is writable.
QList<QPair<QString, bool>> policyMounts(const QJsonObject &policy)
{
    QList<QPair<QString, bool>> mounts;
    for (const QJsonValue &mount : policy.value(QStringLiteral("mounts")).toArray()) {
        const QJsonObject object = mount.toObject();
        mounts.append({object.value(QStringLiteral("target")).toString(),
                       object.value(QStringLiteral("read_only")).toBool(true)});
    }
    return mounts;
}

} // namespace

AuditRow filesystemWrites(AuditContext &context)
{
    RowRecorder row(QStringLiteral("filesystem.writes"),
                    QStringLiteral("Writes land only where the policy allows"));
    const QString marker = QStringLiteral("cordon-audit-") + randomHex(8);
    QList<WriteCase> cases{
        {QStringLiteral("/mnt/data/outputs/") + marker, true, QStringLiteral("outputs")},
        {QStringLiteral("/mnt/data/") + marker, true, QStringLiteral("the workspace")},
        {QStringLiteral("/tmp/") + marker, true, QStringLiteral("/tmp")},
        {QStringLiteral("/") + marker, false, QStringLiteral("the root")},
        {QStringLiteral("/mnt/data/inputs/") + marker, false, QStringLiteral("the inputs")},
        {QStringLiteral("/usr/") + marker, false, QStringLiteral("/usr")},
        {QStringLiteral("/etc/") + marker, false, QStringLiteral("/etc")},
    };
    // A host folder the policy shares must not be writable: a write there changes the host.
    for (const auto &[target, readOnly] : policyMounts(context.policy)) {
        row.check(readOnly, QStringLiteral("the host mount %1 is read-only in the policy").arg(target),
                  QStringLiteral("the policy makes the host mount %1 writable").arg(target));
        cases.append(
            {target + QLatin1Char('/') + marker, false,
             readOnly ? QStringLiteral("the read-only host mount %1").arg(target)
                      : QStringLiteral("the host mount %1, which the policy makes writable").arg(target)});
    }
    for (const WriteCase &attempt : cases) {
        const QStringList args{QStringLiteral("write"), attempt.path};
        auto run = context.session.probe(context.mainContainer, args);
        if (!run)
            return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
        const QString answer =
            probeValue(run->value(QStringLiteral("stdout")).toString(), QStringLiteral("write"));
        row.evidence(QStringLiteral("command"), QStringLiteral("%1 -> %2 (run %3)")
                                                    .arg(ProbeSession::shownCommand(args), answer,
                                                         run->value(QStringLiteral("id")).toString()));
        const bool wrote = answer == QLatin1String("ok");
        if (attempt.allowed)
            row.check(wrote, QStringLiteral("a write to %1 is allowed").arg(attempt.why),
                      QStringLiteral("a write to %1 failed (%2)").arg(attempt.why, answer));
        else
            row.check(!answer.isEmpty() && !wrote,
                      QStringLiteral("a write to %1 is refused (%2)").arg(attempt.why, answer),
                      answer.isEmpty()
                          ? QStringLiteral("the probe gave no answer for a write to %1").arg(attempt.why)
                          : QStringLiteral("a write to %1 succeeded").arg(attempt.why));
    }
    // The probe's files in the workspace go; what landed on a host mount is the host's to clean.
    for (const QString &scope : {QStringLiteral("outputs"), QStringLiteral("workspace")})
        (void)context.session.call(QStringLiteral("file.delete"),
                                   {{QStringLiteral("container"), context.mainContainer},
                                    {QStringLiteral("scope"), scope},
                                    {QStringLiteral("path"), marker}});
    return row.finish(QStringLiteral("the workspace, outputs and /tmp take writes; the root, the inputs, the "
                                     "system and every host folder refuse them"));
}

AuditRow filesystemHostHidden(AuditContext &context)
{
    RowRecorder row(QStringLiteral("filesystem.host_hidden"), QStringLiteral("Host paths are invisible"));
    QStringList hostPaths{
        QDir::homePath(),           QStringLiteral("/root"),     QStringLiteral("/home"),
        QStringLiteral("/var/lib"), QStringLiteral("/run/user"), QStringLiteral("/etc/shadow"),
        QStringLiteral("/etc/ssh")};
    auto status = context.session.call(QStringLiteral("daemon.status"), {});
    if (status && !status->value(QStringLiteral("data_dir")).toString().isEmpty())
        hostPaths.append(status->value(QStringLiteral("data_dir")).toString());
    hostPaths.removeDuplicates();
    // A folder the policy shares makes what it holds visible under its target: one that is, holds or sits in
    // any of these paths shows the host.
    for (const QJsonValue &mount : context.policy.value(QStringLiteral("mounts")).toArray()) {
        const QString host = QDir::cleanPath(mount.toObject().value(QStringLiteral("host")).toString());
        for (const QString &path : std::as_const(hostPaths)) {
            const bool overlaps = host == path || host == QLatin1String("/") ||
                                  path.startsWith(host + QLatin1Char('/')) ||
                                  host.startsWith(path + QLatin1Char('/'));
            row.check(!overlaps,
                      QStringLiteral("the policy's host folder %1 does not share %2").arg(host, path),
                      QStringLiteral("the policy's host folder %1 shares %2").arg(host, path));
        }
    }
    for (const QString &path : std::as_const(hostPaths)) {
        const QStringList args{QStringLiteral("exists"), path};
        auto run = context.session.probe(context.mainContainer, args);
        if (!run)
            return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
        const QString answer =
            probeValue(run->value(QStringLiteral("stdout")).toString(), QStringLiteral("exists"));
        row.evidence(QStringLiteral("command"), ProbeSession::observed(args, answer, *run));
        // Only "no such file": a refusal (EACCES) would mean the path is there.
        row.check(answer == QLatin1String("ENOENT"),
                  QStringLiteral("the host's %1 is not there (%2)").arg(path, answer),
                  QStringLiteral("the host's %1 answered %2 inside, not ENOENT").arg(path, answer));
    }
    return row.finish(QStringLiteral("none of the host's homes, secrets, runtime or Cordon's own data is "
                                     "visible inside"));
}

AuditRow filesystemSpecialArtifacts(AuditContext &context)
{
    RowRecorder row(QStringLiteral("filesystem.special_artifacts"),
                    QStringLiteral("A symlink or special file is refused at download"));
    const QString link = QStringLiteral("audit-link-") + randomHex(6);
    const QString fifo = QStringLiteral("audit-fifo-") + randomHex(6);
    for (const QStringList &args :
         {QStringList{QStringLiteral("symlink"), QStringLiteral("/etc/passwd"),
                      QStringLiteral("/mnt/data/outputs/") + link},
          QStringList{QStringLiteral("fifo"), QStringLiteral("/mnt/data/outputs/") + fifo}}) {
        auto run = context.session.probe(context.mainContainer, args);
        if (!run)
            return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
        row.evidence(
            QStringLiteral("command"),
            ProbeSession::observed(args, run->value(QStringLiteral("stdout")).toString().trimmed(), *run));
    }
    QTemporaryDir destination;
    auto download = context.session.call(QStringLiteral("file.download"),
                                         {{QStringLiteral("container"), context.mainContainer},
                                          {QStringLiteral("path"), QString()},
                                          {QStringLiteral("destination"), destination.path()}},
                                         120000);
    if (!download)
        return row.noGo(QStringLiteral("the download failed as a whole: %1").arg(describe(download.error())));
    QHash<QString, QString> refusals;
    for (const QJsonValue &refused : download->value(QStringLiteral("refused")).toArray())
        refusals.insert(refused.toObject().value(QStringLiteral("path")).toString(),
                        refused.toObject().value(QStringLiteral("code")).toString());
    row.evidence(QStringLiteral("refused"),
                 excerpt(QString::fromUtf8(QJsonDocument(download->value(QStringLiteral("refused")).toArray())
                                               .toJson(QJsonDocument::Compact))));
    const auto notRefused = [&](const QString &what, const QString &path) {
        return refusals.contains(path)
                   ? QStringLiteral("the %1 %2 was refused as %3, not as the special file it is")
                         .arg(what, path, refusals.value(path))
                   : QStringLiteral("the %1 %2 was not refused").arg(what, path);
    };
    row.check(refusals.value(link) == QLatin1String("files.symlink"),
              QStringLiteral("the symlink %1 is refused as files.symlink").arg(link),
              notRefused(QStringLiteral("symlink"), link));
    row.check(refusals.value(fifo) == QLatin1String("files.fifo"),
              QStringLiteral("the FIFO %1 is refused as files.fifo").arg(fifo),
              notRefused(QStringLiteral("FIFO"), fifo));
    const QDir saved(destination.path());
    row.check(!QFileInfo::exists(saved.filePath(link)) && !QFileInfo(saved.filePath(link)).isSymLink() &&
                  !QFileInfo::exists(saved.filePath(fifo)),
              QStringLiteral("neither reached the host"),
              QStringLiteral("the symlink or the FIFO was saved on the host"));
    for (const QString &name : {link, fifo})
        (void)context.session.call(QStringLiteral("file.delete"),
                                   {{QStringLiteral("container"), context.mainContainer},
                                    {QStringLiteral("scope"), QStringLiteral("outputs")},
                                    {QStringLiteral("path"), name}});
    return row.finish(QStringLiteral("the download names both and copies neither"));
}

} // namespace Cordon::Audit
