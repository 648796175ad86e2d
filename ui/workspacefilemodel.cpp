// SPDX-License-Identifier: MIT
#include "workspacefilemodel.h"

#include "core/formatting.h"

#include <QJsonObject>

namespace Cordon::Ui {

namespace {

QStandardItem *readOnly(const QString &text)
{
    auto *item = new QStandardItem(text);
    item->setEditable(false);
    item->setDropEnabled(false);
    item->setDragEnabled(false);
    return item;
}

QList<QStandardItem *> rowFor(const QString &scope, const QString &path, const QString &name)
{
    QList<QStandardItem *> row{readOnly(Format::displayName(name)), readOnly(QString()), readOnly(QString())};
    for (QStandardItem *item : row) {
        item->setData(scope, WorkspaceFileModel::ScopeRole);
        item->setData(path, WorkspaceFileModel::PathRole);
        item->setData(false, WorkspaceFileModel::IsFileRole);
    }
    return row;
}

} // namespace

WorkspaceFileModel::WorkspaceFileModel(QObject *parent) : QStandardItemModel(0, ColumnCount, parent)
{
    setHorizontalHeaderLabels({tr("Name"), tr("Size"), tr("SHA-256")});
    const QStringList titles{tr("inputs/"), tr("outputs/"), tr("workspace")};
    const QStringList tips{tr("/mnt/data/inputs: files you uploaded, read-only inside the container"),
                           tr("/mnt/data/outputs: what programs wrote for you to download"),
                           tr("/mnt/data: the rest of the container's workspace")};
    for (int i = 0; i < scopes().size(); ++i) {
        QList<QStandardItem *> row = rowFor(scopes().at(i), QString(), titles.at(i));
        row.first()->setText(titles.at(i));
        row.first()->setToolTip(tips.at(i));
        appendRow(row);
    }
}

QStringList WorkspaceFileModel::scopes()
{
    return {QStringLiteral("inputs"), QStringLiteral("outputs"), QStringLiteral("workspace")};
}

QStandardItem *WorkspaceFileModel::rootItem(const QString &scope) const
{
    const int row = int(scopes().indexOf(scope));
    return row < 0 ? nullptr : item(row, NameColumn);
}

QModelIndex WorkspaceFileModel::rootIndex(const QString &scope) const
{
    QStandardItem *root = rootItem(scope);
    return root ? root->index() : QModelIndex();
}

void WorkspaceFileModel::clearFiles()
{
    for (const QString &scope : scopes()) {
        QStandardItem *root = rootItem(scope);
        if (root->rowCount() > 0)
            root->removeRows(0, root->rowCount());
    }
}

void WorkspaceFileModel::setFiles(const QString &scope, const QJsonArray &files)
{
    QStandardItem *root = rootItem(scope);
    if (!root)
        return;
    if (root->rowCount() > 0)
        root->removeRows(0, root->rowCount());
    // The daemon lists regular files with their relative paths in name order; folders are made on the way.
    QHash<QString, QStandardItem *> folders;
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QString path = file.value(QStringLiteral("path")).toString();
        const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
        if (parts.isEmpty())
            continue;
        QStandardItem *parent = root;
        QString prefix;
        for (int i = 0; i + 1 < parts.size(); ++i) {
            prefix += (prefix.isEmpty() ? QString() : QStringLiteral("/")) + parts.at(i);
            QStandardItem *&folder = folders[prefix];
            if (!folder) {
                const QList<QStandardItem *> row = rowFor(scope, prefix, parts.at(i) + QLatin1Char('/'));
                parent->appendRow(row);
                folder = row.first();
            }
            parent = folder;
        }
        QList<QStandardItem *> row = rowFor(scope, path, parts.last());
        const qint64 size = file.value(QStringLiteral("size")).toInteger();
        const QString sha256 = file.value(QStringLiteral("sha256")).toString();
        row.at(SizeColumn)->setText(Format::bytes(size));
        row.at(SizeColumn)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        row.at(HashColumn)->setText(sha256.left(16));
        const QString tip =
            tr("%1\n%2 bytes\nsha256 %3").arg(Format::displayName(path), QString::number(size), sha256);
        for (QStandardItem *item : row) {
            item->setData(true, IsFileRole);
            item->setData(size, SizeRole);
            item->setData(sha256, Sha256Role);
            item->setToolTip(tip);
        }
        parent->appendRow(row);
    }
}

QModelIndex WorkspaceFileModel::indexOf(const QString &scope, const QString &path) const
{
    const QModelIndex root = rootIndex(scope);
    const QModelIndexList found =
        match(index(0, NameColumn, root), PathRole, path, 1, Qt::MatchExactly | Qt::MatchRecursive);
    for (const QModelIndex &candidate : found) {
        if (candidate.data(ScopeRole).toString() == scope && candidate.data(IsFileRole).toBool())
            return candidate;
    }
    return {};
}

} // namespace Cordon::Ui
