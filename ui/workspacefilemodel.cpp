// SPDX-License-Identifier: MIT
#include "workspacefilemodel.h"

#include "allowlistmodel.h"
#include "core/formatting.h"
#include "paletteicon.h"

#include <QGuiApplication>
#include <QPalette>

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
    QList<QStandardItem *> row{readOnly(Format::displayName(name)), readOnly(QString()), readOnly(QString()),
                               readOnly(QString())};
    for (QStandardItem *item : row) {
        item->setData(scope, WorkspaceFileModel::ScopeRole);
        item->setData(path, WorkspaceFileModel::PathRole);
        item->setData(false, WorkspaceFileModel::IsFileRole);
    }
    return row;
}

// The Scan cell of a file with findings: what a download would do and how many findings, an icon in a colour
// that says how bad, and every finding (up to a screenful) in the tooltip.
void markScanned(QStandardItem *cell, const QJsonObject &entry)
{
    const QString action = entry.value(QStringLiteral("action")).toString();
    const QJsonArray findings = entry.value(QStringLiteral("findings")).toArray();
    // Short, for a narrow tree: the rules are in the tooltip and the message above.
    const QString count = findings.size() == 1 ? WorkspaceFileModel::tr("1 finding")
                                               : WorkspaceFileModel::tr("%1 findings").arg(findings.size());
    const QPalette palette = QGuiApplication::palette();
    QString verdict;
    if (action == QLatin1String("blocked")) {
        cell->setText(WorkspaceFileModel::tr("Kept back: %1").arg(count));
        cell->setIcon(paletteIcon(QStringLiteral("outcome-failed"), AllowlistModel::problemColour(palette)));
        verdict = WorkspaceFileModel::tr("A download would keep this file back (the container's policy, "
                                         "artifact_scan). Download Anyway asks for a reason and records it.");
    } else if (action == QLatin1String("redacted")) {
        cell->setText(WorkspaceFileModel::tr("Redacted: %1").arg(count));
        cell->setIcon(paletteIcon(QStringLiteral("outcome-failed"), AllowlistModel::outsideColour(palette)));
        verdict = WorkspaceFileModel::tr("A download would save this file with the findings replaced.");
    } else {
        cell->setText(WorkspaceFileModel::tr("Warning: %1").arg(count));
        cell->setIcon(paletteIcon(QStringLiteral("outcome-failed"), AllowlistModel::outsideColour(palette)));
        verdict = WorkspaceFileModel::tr("A download would save this file and report the findings.");
    }
    constexpr int Shown = 12;
    QStringList lines{verdict, WorkspaceFileModel::tr("The artifact scan found:")};
    for (int i = 0; i < findings.size() && i < Shown; ++i) {
        const QJsonObject finding = findings.at(i).toObject();
        const qint64 line = finding.value(QStringLiteral("line")).toInteger();
        const QString where =
            line > 0
                ? WorkspaceFileModel::tr("line %1").arg(line)
                : WorkspaceFileModel::tr("byte %1").arg(finding.value(QStringLiteral("offset")).toInteger());
        lines.append(QStringLiteral("• %1, %2: %3 (%4)  %5")
                         .arg(Format::displayName(finding.value(QStringLiteral("path")).toString()), where,
                              finding.value(QStringLiteral("rule")).toString(),
                              finding.value(QStringLiteral("severity")).toString(),
                              Format::displayName(finding.value(QStringLiteral("excerpt")).toString())));
    }
    if (findings.size() > Shown)
        lines.append(WorkspaceFileModel::tr("… and %1 more").arg(findings.size() - Shown));
    cell->setToolTip(lines.join(QLatin1Char('\n')));
}

} // namespace

WorkspaceFileModel::WorkspaceFileModel(QObject *parent) : QStandardItemModel(0, ColumnCount, parent)
{
    setHorizontalHeaderLabels({tr("Name"), tr("Size"), tr("Scan"), tr("SHA-256")});
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

void WorkspaceFileModel::setFiles(const QString &scope, const QJsonArray &files, const QJsonArray &scanned)
{
    QHash<QString, QJsonObject> findings;
    for (const QJsonValue &entry : scanned)
        findings.insert(entry.toObject().value(QStringLiteral("path")).toString(), entry.toObject());
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
        const QJsonObject scan = findings.value(path);
        for (QStandardItem *item : row) {
            item->setData(true, IsFileRole);
            item->setData(size, SizeRole);
            item->setData(sha256, Sha256Role);
            item->setData(scan.value(QStringLiteral("action")).toString(), ScanActionRole);
            item->setToolTip(tip);
        }
        if (!scan.isEmpty())
            markScanned(row.at(ScanColumn), scan);
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
