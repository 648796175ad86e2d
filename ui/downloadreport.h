// SPDX-License-Identifier: MIT
// What one download the user asked for came to, gathered from its `file.download` answers and put in words
// for the file browser's message: how many files were copied and where, which were saved under a new name
// (Keep Both), which were skipped because the name was taken (Skip), which were refused and why, and what
// failed. No widgets: the wording is tested on its own.
#pragma once

#include "core/result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Cordon::Ui {

// Why the daemon refused to copy an entry, in words a user can act on; `reason` (the daemon's own) for codes
// without words of their own.
QString refusalWords(const QString &code, const QString &reason);

// One refused entry of a `file.download` or `file.list` answer in words a user can act on, the daemon's code
// in brackets for a bug report: "• evil: a symbolic link, which could point anywhere on this computer
// (files.symlink)".
QString refusalLine(const QJsonObject &refused);

class DownloadReport final
{
public:
    // `skipTaken`: the user chose Skip for names already in the destination, so `files.exists` is a skip, not
    // a refusal.
    DownloadReport(QString destination, bool skipTaken);

    // A `file.download` answer for a transfer of `path` from `scope` (empty: the whole scope); each `scanned`
    // entry then carries both ("scope", "transfer"), for Download Anyway to ask for it again.
    void addAnswer(const QJsonObject &answer, const QString &scope = {}, const QString &path = {});
    // A request that failed: a single file's refusal (`path` is the file; true: the other files can still be
    // tried) or a failure that ends the download (false).
    bool addFailure(const QString &path, const Error &error);

    QString destination() const { return m_destination; }
    qsizetype copiedCount() const { return m_copied.size(); }
    qsizetype skippedCount() const { return m_skipped.size(); }
    qsizetype refusedCount() const { return m_refused.size(); }
    // The artifact scan's findings, a `scanned` entry per file ({path, action, findings}), in answer order.
    const QJsonArray &scanned() const { return m_scanned; }
    // The files the scan kept back (action "blocked"), relative to `scope`'s root as downloaded.
    QStringList blockedPaths() const;
    // This report without the files the scan kept back, for Download Anyway to add what came of asking for
    // them again: the message then still tells of the other files.
    DownloadReport withoutBlocked() const;
    // Something the user should look at: a refusal or a failure (skips are what they asked for).
    bool hasProblems() const { return !m_refused.isEmpty() || !m_errors.isEmpty(); }
    // The first line gives every count; then renamed copies, refusals with reasons, failures.
    QString summary() const;

private:
    QString m_destination;
    bool m_skipTaken;
    QJsonArray m_copied;
    QJsonArray m_refused;
    QJsonArray m_scanned;
    QStringList m_skipped;
    QStringList m_errors;
};

} // namespace Cordon::Ui
