// SPDX-License-Identifier: MIT
// A container's files as a tree with three roots, one per scope the daemon lists: inputs/ (what the user
// uploaded, read-only inside), outputs/ (what programs wrote for the user) and the rest of the workspace.
// Each root is replaced as a whole from one `file.list` answer. Names come from untrusted code and are shown
// escaped (Format::displayName), as plain text. A listing that was also scanned (`scan`) marks each file with
// findings in the Scan column: what a download would do with it, and the findings in its tooltip.
#pragma once

#include <QJsonArray>
#include <QStandardItemModel>

namespace Cordon::Ui {

class WorkspaceFileModel final : public QStandardItemModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceFileModel)

public:
    enum Column
    {
        NameColumn,
        SizeColumn,
        ScanColumn,
        HashColumn,
        ColumnCount
    };
    enum Role
    {
        ScopeRole = Qt::UserRole + 1, // "inputs", "outputs", "workspace"
        PathRole,                     // relative to the scope; empty for a root
        IsFileRole,
        SizeRole,
        Sha256Role,
        ScanActionRole, // what a download would do: "blocked", "warned", "redacted"; empty without findings
    };

    explicit WorkspaceFileModel(QObject *parent = nullptr);

    static QStringList scopes();
    // The scope's root row ("inputs/", "outputs/", "workspace").
    QModelIndex rootIndex(const QString &scope) const;
    // Replaces the scope's entries with the `files` of a `file.list` answer, and its `scanned` when the
    // listing was scanned.
    void setFiles(const QString &scope, const QJsonArray &files, const QJsonArray &scanned = {});
    // Empties every root (no container, or an expired one).
    void clearFiles();
    // The file's row (column 0) by scope and relative path; invalid if not listed.
    QModelIndex indexOf(const QString &scope, const QString &path) const;

private:
    QStandardItem *rootItem(const QString &scope) const;
};

} // namespace Cordon::Ui
