// SPDX-License-Identifier: MIT
#include "network/orgpolicywatcher.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace Cordon::Network {

namespace {

// The folder that holds path, or its nearest ancestor that exists: creating ~/.config/cordon and then the
// file in it is seen step by step, each event moving the watch one level down.
QString nearestExistingFolder(const QString &path)
{
    QDir folder = QFileInfo(path).absoluteDir();
    while (!folder.exists() && !folder.isRoot()) {
        if (!folder.cdUp())
            break;
    }
    return folder.absolutePath();
}

// An organisation file is a few kilobytes; anything beyond this is refused by the loader anyway, and the
// fingerprint only needs to notice that it changed.
constexpr qint64 FingerprintReadLimit = 4 * 1024 * 1024;

// Long enough for an editor's truncate-and-write, short enough that a saved change applies "at once".
constexpr int QuietMillis = 150;

} // namespace

OrgPolicyWatcher::OrgPolicyWatcher(QStringList files, QObject *parent)
    : QObject(parent), m_files(std::move(files))
{
    m_quiet.setSingleShot(true);
    m_quiet.setInterval(QuietMillis);
    connect(&m_quiet, &QTimer::timeout, this, &OrgPolicyWatcher::check);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &OrgPolicyWatcher::eventSeen);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &OrgPolicyWatcher::eventSeen);
    resync();
}

void OrgPolicyWatcher::resync()
{
    watchWhatExists();
    m_seen = fingerprint();
}

void OrgPolicyWatcher::eventSeen()
{
    // A file replaced by rename ends its watch, and a folder just created needs one: re-arm on every event.
    watchWhatExists();
    m_quiet.start();
}

void OrgPolicyWatcher::check()
{
    // The watches were re-armed by each event that started the quiet period.
    QByteArray now = fingerprint();
    if (now == m_seen)
        return;
    m_seen = std::move(now);
    Q_EMIT changed();
}

void OrgPolicyWatcher::watchWhatExists()
{
    QStringList wanted;
    for (const QString &file : std::as_const(m_files)) {
        wanted.append(nearestExistingFolder(file));
        if (QFileInfo::exists(file))
            wanted.append(file);
    }
    wanted.removeDuplicates();
    const QStringList watched = m_watcher.files() + m_watcher.directories();
    QStringList stale;
    for (const QString &path : watched)
        if (!wanted.contains(path))
            stale.append(path);
    if (!stale.isEmpty())
        m_watcher.removePaths(stale);
    QStringList fresh;
    for (const QString &path : std::as_const(wanted))
        if (!watched.contains(path))
            fresh.append(path);
    if (!fresh.isEmpty())
        m_watcher.addPaths(fresh);
}

QByteArray OrgPolicyWatcher::fingerprint() const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString &path : std::as_const(m_files)) {
        hash.addData(QFile::encodeName(path));
        QFile file(path);
        const QFileInfo info(path);
        // Presence, symlink target and content: the loader's verdict depends on all three (a dangling symlink
        // for the administrator's file is an error, not an absent file).
        hash.addData(info.exists() ? QByteArrayView("\1present") : QByteArrayView("\1absent"));
        if (info.isSymLink())
            hash.addData(QFile::encodeName(info.symLinkTarget()));
        if (file.open(QIODevice::ReadOnly))
            hash.addData(file.read(FingerprintReadLimit));
        else
            hash.addData(QByteArrayView("\1unreadable"));
    }
    return hash.result();
}

} // namespace Cordon::Network
