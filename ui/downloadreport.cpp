// SPDX-License-Identifier: MIT
#include "downloadreport.h"

#include "core/formatting.h"
#include "core/refusalcodes.h"

#include <QCoreApplication>

namespace Cordon::Ui {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("Cordon::Ui::DownloadReport", text);
}

QString fileCount(qsizetype count)
{
    return count == 1 ? tr("1 file") : tr("%1 files").arg(count);
}

} // namespace

QString refusalWords(const QString &code, const QString &reason)
{
    if (code == QLatin1String("files.symlink"))
        return tr("a symbolic link, which could point anywhere on this computer");
    if (code == QLatin1String("files.fifo"))
        return tr("a named pipe (fifo), which could block the copy forever");
    if (code == QLatin1String("files.hardlink"))
        return tr("a hard link, which could be a file from outside the container");
    if (code == QLatin1String("files.socket"))
        return tr("a socket, not a file");
    if (code == QLatin1String("files.device"))
        return tr("a device, not a file");
    if (code == QLatin1String("files.exists"))
        return tr("the destination already has something of that name (a folder, a link, or a file that "
                  "appeared meanwhile), which was left alone");
    if (code == QLatin1String("files.too_large"))
        return tr("larger than the container's workspace limit");
    if (code == QLatin1String("files.bad_name"))
        return tr("a name that is not safe to use on this computer");
    if (code == QLatin1String("files.blocked"))
        return tr("kept back by the artifact scan: %1").arg(reason);
    return reason;
}

QString refusalLine(const QJsonObject &refused)
{
    const QString code = refused.value(QStringLiteral("code")).toString();
    return tr("• %1: %2 (%3)")
        .arg(Format::displayName(refused.value(QStringLiteral("path")).toString()),
             refusalWords(code, refused.value(QStringLiteral("reason")).toString()), code);
}

DownloadReport::DownloadReport(QString destination, bool skipTaken)
    : m_destination(std::move(destination)), m_skipTaken(skipTaken)
{}

void DownloadReport::addAnswer(const QJsonObject &answer, const QString &scope, const QString &path)
{
    for (const QJsonValue &entry : answer.value(QStringLiteral("scanned")).toArray()) {
        QJsonObject file = entry.toObject();
        file.insert(QStringLiteral("scope"), scope);
        file.insert(QStringLiteral("transfer"), path);
        m_scanned.append(file);
    }
    for (const QJsonValue &entry : answer.value(QStringLiteral("copied")).toArray())
        m_copied.append(entry);
    for (const QJsonValue &entry : answer.value(QStringLiteral("refused")).toArray()) {
        const QJsonObject refused = entry.toObject();
        if (m_skipTaken && refused.value(QStringLiteral("code")).toString() == QLatin1String("files.exists"))
            m_skipped.append(refused.value(QStringLiteral("path")).toString());
        else
            m_refused.append(refused);
    }
}

QStringList DownloadReport::blockedPaths() const
{
    QStringList paths;
    for (const QJsonValue &entry : m_scanned) {
        const QJsonObject file = entry.toObject();
        if (file.value(QStringLiteral("action")).toString() == QLatin1String("blocked"))
            paths.append(file.value(QStringLiteral("path")).toString());
    }
    return paths;
}

DownloadReport DownloadReport::withoutBlocked() const
{
    DownloadReport rest(m_destination, m_skipTaken);
    rest.m_copied = m_copied;
    rest.m_skipped = m_skipped;
    rest.m_errors = m_errors;
    for (const QJsonValue &entry : m_refused) {
        if (entry.toObject().value(QStringLiteral("code")).toString() != QLatin1String("files.blocked"))
            rest.m_refused.append(entry);
    }
    for (const QJsonValue &entry : m_scanned) {
        if (entry.toObject().value(QStringLiteral("action")).toString() != QLatin1String("blocked"))
            rest.m_scanned.append(entry);
    }
    return rest;
}

bool DownloadReport::addFailure(const QString &path, const Error &error)
{
    if (!isRefusalCode(toQt(error.code()))) {
        m_errors.append(tr("Download failed: %1").arg(toQt(error.message())));
        return false;
    }
    addAnswer({{QStringLiteral("refused"),
                QJsonArray{QJsonObject{{QStringLiteral("path"), path},
                                       {QStringLiteral("code"), toQt(error.code())},
                                       {QStringLiteral("reason"), toQt(error.message())}}}}});
    return true;
}

QString DownloadReport::summary() const
{
    // Every count in the first line: "Downloaded 0 files" above a list of refusals reads like success.
    QStringList notCopied;
    if (!m_skipped.isEmpty())
        notCopied.append(tr("%1 skipped (already there)").arg(fileCount(m_skipped.size())));
    if (!m_refused.isEmpty())
        notCopied.append(tr("%1 refused").arg(fileCount(m_refused.size())));
    QString first = m_copied.isEmpty()
                        ? tr("Nothing was downloaded to %1").arg(m_destination)
                        : tr("Downloaded %1 to %2").arg(fileCount(m_copied.size()), m_destination);
    first += notCopied.isEmpty()
                 ? QStringLiteral(".")
                 : QStringLiteral(": ") + notCopied.join(QStringLiteral(", ")) + QLatin1Char('.');
    QStringList lines{first};
    for (const QJsonValue &entry : m_copied) {
        const QJsonObject file = entry.toObject();
        const QString path = file.value(QStringLiteral("path")).toString();
        const QString savedAs = file.value(QStringLiteral("saved_as")).toString();
        // A single file lands under its last name component; only a different name is news.
        if (!savedAs.isEmpty() && savedAs != path && savedAs != path.section(QLatin1Char('/'), -1))
            lines.append(tr("• %1 saved as %2").arg(Format::displayName(path), Format::displayName(savedAs)));
    }
    if (!m_refused.isEmpty()) {
        lines.append(tr("Refused %1, not copied:").arg(fileCount(m_refused.size())));
        for (const QJsonValue &entry : m_refused)
            lines.append(refusalLine(entry.toObject()));
    }
    // Saved but worth a look before it is shared.
    for (const QJsonValue &entry : m_scanned) {
        const QJsonObject file = entry.toObject();
        const QString action = file.value(QStringLiteral("action")).toString();
        if (action == QLatin1String("blocked"))
            continue; // listed with the refusals
        QStringList rules;
        for (const QJsonValue &finding : file.value(QStringLiteral("findings")).toArray()) {
            const QString rule = finding.toObject().value(QStringLiteral("rule")).toString();
            if (!rules.contains(rule))
                rules.append(rule);
        }
        lines.append(tr("• %1 %2: the artifact scan found %3")
                         .arg(Format::displayName(file.value(QStringLiteral("path")).toString()),
                              action == QLatin1String("redacted") ? tr("was saved redacted")
                              : action == QLatin1String("overridden")
                                  ? tr("was saved on your reason")
                                  : tr("was saved; check it before sharing"),
                              rules.join(QStringLiteral(", "))));
    }
    lines.append(m_errors);
    return lines.join(QLatin1Char('\n'));
}

} // namespace Cordon::Ui
