// SPDX-License-Identifier: MIT
#include "filebrowser.h"

#include "core/formatting.h"
#include "csvtable.h"
#include "daemonconnection.h"
#include "workspacefilemodel.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QImage>
#include <QImageReader>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

constexpr int PreviewMaxRows = 500;

// Why the daemon refused to copy an entry, in words a user can act on; the daemon's code stays in brackets
// for a bug report.
QString refusalWords(const QString &code, const QString &reason)
{
    if (code == QLatin1String("files.symlink"))
        return FileBrowser::tr("a symbolic link, which could point anywhere on this computer");
    if (code == QLatin1String("files.fifo"))
        return FileBrowser::tr("a named pipe (fifo), which could block the copy forever");
    if (code == QLatin1String("files.hardlink"))
        return FileBrowser::tr("a hard link, which could be a file from outside the container");
    if (code == QLatin1String("files.socket"))
        return FileBrowser::tr("a socket, not a file");
    if (code == QLatin1String("files.device"))
        return FileBrowser::tr("a device, not a file");
    if (code == QLatin1String("files.exists"))
        return FileBrowser::tr("the destination already has a file of that name, which is never replaced");
    if (code == QLatin1String("files.too_large"))
        return FileBrowser::tr("larger than the container's workspace limit");
    if (code == QLatin1String("files.bad_name"))
        return FileBrowser::tr("a name that is not safe to use on this computer");
    return reason;
}

QString refusalLine(const QJsonObject &refused)
{
    const QString code = refused.value(QStringLiteral("code")).toString();
    return FileBrowser::tr("• %1: %2 (%3)")
        .arg(Format::displayName(refused.value(QStringLiteral("path")).toString()),
             refusalWords(code, refused.value(QStringLiteral("reason")).toString()), code);
}

QStringList localFiles(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls()) {
        if (url.isLocalFile())
            paths.append(url.toLocalFile());
    }
    return paths;
}

} // namespace

FileBrowser::FileBrowser(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_model(new WorkspaceFileModel(this)),
      m_view(new QTreeView(this)), m_message(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_previewPages(new QStackedWidget(this)), m_previewNote(new QLabel(this)),
      m_textPreview(new QPlainTextEdit(this)), m_tablePreview(new QTableWidget(this)),
      m_imagePreview(new QLabel(this)), m_refreshAction(new QAction(tr("&Refresh"), this)),
      m_uploadAction(new QAction(tr("&Upload…"), this)),
      m_downloadAction(new QAction(tr("&Download…"), this)),
      m_downloadAllAction(new QAction(tr("Download &All Outputs…"), this)),
      m_deleteAction(new QAction(tr("De&lete…"), this))
{
    m_refreshAction->setObjectName(QStringLiteral("refreshFilesAction"));
    m_refreshAction->setToolTip(tr("List the container's files again"));
    m_uploadAction->setObjectName(QStringLiteral("uploadFilesAction"));
    m_uploadAction->setToolTip(
        tr("Copy files from this computer into inputs/ (read-only inside); dropping files on the list does "
           "the same"));
    m_downloadAction->setObjectName(QStringLiteral("downloadFilesAction"));
    m_downloadAction->setToolTip(tr("Copy the selected files to a folder on this computer"));
    m_downloadAllAction->setObjectName(QStringLiteral("downloadAllAction"));
    m_downloadAllAction->setToolTip(tr("Copy everything in outputs/ to a folder on this computer"));
    m_deleteAction->setObjectName(QStringLiteral("deleteFilesAction"));
    m_deleteAction->setToolTip(tr("Delete the selected files from the container"));
    connect(m_refreshAction, &QAction::triggered, this, &FileBrowser::refresh);
    connect(m_uploadAction, &QAction::triggered, this, &FileBrowser::chooseUpload);
    connect(m_downloadAction, &QAction::triggered, this, &FileBrowser::chooseDownload);
    connect(m_downloadAllAction, &QAction::triggered, this, [this] {
        const QString destination = QFileDialog::getExistingDirectory(this, tr("Download All Outputs To"));
        if (!destination.isEmpty())
            downloadTo(destination, {m_model->rootIndex(QStringLiteral("outputs"))});
    });
    connect(m_deleteAction, &QAction::triggered, this, &FileBrowser::confirmDelete);

    auto *toolbar = new QToolBar(this);
    toolbar->setIconSize(QSize(16, 16));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(m_uploadAction);
    toolbar->addAction(m_downloadAction);
    toolbar->addAction(m_downloadAllAction);
    toolbar->addAction(m_deleteAction);
    toolbar->addSeparator();
    toolbar->addAction(m_refreshAction);

    m_view->setObjectName(QStringLiteral("fileTree"));
    m_view->setAccessibleName(tr("Container files"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAllColumnsShowFocus(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::SizeColumn, QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::HashColumn, QHeaderView::ResizeToContents);
    m_view->expandAll();
    // Drops are handled here, not by the model: a drop uploads host files, it never moves rows.
    m_view->setAcceptDrops(true);
    m_view->viewport()->setAcceptDrops(true);
    m_view->setDragDropMode(QAbstractItemView::DropOnly);
    m_view->viewport()->installEventFilter(this);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->addActions({m_downloadAction, m_deleteAction, m_refreshAction});
    m_deleteAction->setShortcut(QKeySequence::Delete);
    m_deleteAction->setShortcutContext(Qt::WidgetShortcut);
    m_view->addAction(m_deleteAction);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &FileBrowser::updateActions);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                // Only a choice of the user's: a listing that replaces rows moves the current index too, and
                // each preview is a download the daemon records.
                if (!m_relisting && current.isValid() &&
                    current.data(WorkspaceFileModel::IsFileRole).toBool())
                    preview(current);
            });
    connect(m_model, &QAbstractItemModel::rowsInserted, m_view,
            [this](const QModelIndex &folder) { m_view->expand(folder); });

    m_message->setObjectName(QStringLiteral("fileMessage"));
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setContentsMargins(8, 4, 8, 4);
    m_message->hide();
    m_progress->setObjectName(QStringLiteral("fileProgress"));
    m_progress->setMaximumHeight(14);
    m_progress->setTextVisible(false);
    m_progress->hide();

    m_previewNote->setObjectName(QStringLiteral("previewNote"));
    m_previewNote->setTextFormat(Qt::PlainText);
    m_previewNote->setAlignment(Qt::AlignCenter);
    m_previewNote->setWordWrap(true);
    m_previewNote->setForegroundRole(QPalette::PlaceholderText);
    m_textPreview->setReadOnly(true);
    m_textPreview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_textPreview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_textPreview->setAccessibleName(tr("Text preview"));
    m_tablePreview->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tablePreview->setAccessibleName(tr("Table preview"));
    m_tablePreview->setAlternatingRowColors(true);
    m_tablePreview->setWordWrap(false);
    m_imagePreview->setAlignment(Qt::AlignCenter);
    m_imagePreview->setAccessibleName(tr("Image preview"));
    auto *imageScroll = new QScrollArea(this);
    imageScroll->setWidget(m_imagePreview);
    imageScroll->setWidgetResizable(true);
    imageScroll->setFrameShape(QFrame::NoFrame);
    m_previewPages->addWidget(m_previewNote);
    m_previewPages->addWidget(m_textPreview);
    m_previewPages->addWidget(m_tablePreview);
    m_previewPages->addWidget(imageScroll);
    m_previewCaption = new QLabel(this);
    m_previewCaption->setTextFormat(Qt::PlainText);
    m_previewCaption->setContentsMargins(6, 2, 6, 2);
    m_previewCaption->setForegroundRole(QPalette::PlaceholderText);
    auto *previewArea = new QWidget(this);
    auto *previewLayout = new QVBoxLayout(previewArea);
    previewLayout->setContentsMargins(0, 0, 0, 0);
    previewLayout->setSpacing(0);
    previewLayout->addWidget(m_previewCaption);
    previewLayout->addWidget(m_previewPages, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("fileSplitter"));
    splitter->addWidget(m_view);
    splitter->addWidget(previewArea);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(toolbar);
    layout->addWidget(m_progress);
    layout->addWidget(m_message);
    layout->addWidget(splitter, 1);

    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        updateActions();
        if (m_connection.isConnected())
            refresh();
    });
    showPreviewMessage(tr("Select a file to preview it.\nDrop files here to upload them into inputs/."));
    updateActions();
}

FileBrowser::~FileBrowser() = default;

void FileBrowser::setContainer(const QJsonObject &container)
{
    const QString id = container.value(QStringLiteral("id")).toString();
    const QString state = container.value(QStringLiteral("state")).toString();
    if (id == m_containerId && state == m_state)
        return;
    const bool other = id != m_containerId;
    m_containerId = id;
    m_state = state;
    if (other) {
        m_model->clearFiles();
        m_previewDir.reset();
        ++m_previewGeneration;
        setMessage(QString());
        showPreviewMessage(tr("Select a file to preview it.\nDrop files here to upload them into inputs/."));
    }
    if (state == QLatin1String("expired") || state == QLatin1String("deleted")) {
        m_model->clearFiles();
        setMessage(tr("This container has expired: its files are gone."));
    }
    updateActions();
    refresh();
}

QString FileBrowser::message() const
{
    return m_message->text();
}

QString FileBrowser::previewKind() const
{
    switch (m_previewPages->currentIndex()) {
    case 1:
        return QStringLiteral("text");
    case 2:
        return QStringLiteral("table");
    case 3:
        return QStringLiteral("image");
    default:
        return m_previewNote->text().isEmpty() ? QStringLiteral("none") : QStringLiteral("message");
    }
}

void FileBrowser::refresh()
{
    const bool live = m_state == QLatin1String("running") || m_state == QLatin1String("stopped");
    if (m_containerId.isEmpty() || !live || !m_connection.isConnected())
        return;
    const quint64 generation = ++m_listGeneration;
    const QString id = m_containerId;
    auto notes = std::make_shared<QStringList>();
    auto pending = std::make_shared<int>(int(WorkspaceFileModel::scopes().size()));
    for (const QString &scope : WorkspaceFileModel::scopes()) {
        m_connection.call(
            QStringLiteral("file.list"),
            {{QStringLiteral("container"), id}, {QStringLiteral("scope"), scope}}, this,
            [this, generation, id, scope, notes, pending](Result<QJsonObject> result) {
                // A newer listing (or another container) makes this answer stale.
                if (generation != m_listGeneration || id != m_containerId)
                    return;
                if (!result) {
                    notes->append(tr("%1 could not be listed: %2").arg(scope, result.error().message()));
                } else {
                    const QModelIndex current = m_view->selectionModel()->currentIndex();
                    const QString currentScope = current.data(WorkspaceFileModel::ScopeRole).toString();
                    const QString currentPath = current.data(WorkspaceFileModel::PathRole).toString();
                    m_relisting = true;
                    m_model->setFiles(scope, result->value(QStringLiteral("files")).toArray());
                    // The file the user was on stays selected when it is still there.
                    if (currentScope == scope) {
                        const QModelIndex again = m_model->indexOf(scope, currentPath);
                        if (again.isValid())
                            m_view->selectionModel()->setCurrentIndex(
                                again, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
                    }
                    m_relisting = false;
                    for (const QJsonValue &refused : result->value(QStringLiteral("refused")).toArray())
                        notes->append(
                            tr("Not listed in %1/: %2").arg(scope, refusalLine(refused.toObject()).mid(2)));
                    if (result->value(QStringLiteral("truncated")).toBool())
                        notes->append(tr("%1 has more files than are listed.").arg(scope));
                }
                if (--*pending == 0 && !notes->isEmpty() && !isBusy())
                    setMessage(notes->join(QLatin1Char('\n')), true);
                updateActions();
            });
    }
}

void FileBrowser::chooseUpload()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Upload Files into inputs/"));
    if (!paths.isEmpty())
        uploadFiles(paths);
}

void FileBrowser::uploadDropped(const QMimeData *mime)
{
    const QStringList paths = localFiles(mime);
    if (paths.isEmpty()) {
        setMessage(tr("Only files from this computer can be dropped here."), true);
        return;
    }
    uploadFiles(paths);
}

void FileBrowser::uploadFiles(const QStringList &hostPaths)
{
    if (m_containerId.isEmpty() || hostPaths.isEmpty())
        return;
    setMessage(QString());
    setBusy(true);
    m_progress->setRange(0, int(hostPaths.size()));
    m_progress->setValue(0);
    uploadNext(hostPaths, int(hostPaths.size()), {}, {});
}

void FileBrowser::uploadNext(QStringList remaining, int total, QStringList done, QStringList failed)
{
    if (remaining.isEmpty()) {
        setBusy(false);
        QStringList lines;
        if (!done.isEmpty())
            lines.append((done.size() == 1 ? tr("Uploaded 1 file into inputs/: %1").arg(done.first())
                                           : tr("Uploaded %1 files into inputs/: %2")
                                                 .arg(done.size())
                                                 .arg(done.join(QStringLiteral(", ")))));
        if (!failed.isEmpty())
            lines.append(tr("Not uploaded:\n%1").arg(failed.join(QLatin1Char('\n'))));
        setMessage(lines.join(QLatin1Char('\n')), !failed.isEmpty());
        refresh();
        Q_EMIT operationFinished();
        return;
    }
    const QString hostPath = QFileInfo(remaining.takeFirst()).absoluteFilePath();
    const QString name = QFileInfo(hostPath).fileName();
    m_progress->setValue(total - int(remaining.size()) - 1);
    m_progress->setToolTip(tr("Uploading %1 (%2 of %3)")
                               .arg(Format::displayName(name), QString::number(total - remaining.size()),
                                    QString::number(total)));
    if (QFileInfo(hostPath).isDir()) {
        failed.append(tr("• %1: a folder (upload the files in it)").arg(Format::displayName(name)));
        uploadNext(remaining, total, done, failed);
        return;
    }
    m_connection.call(QStringLiteral("file.upload"),
                      {{QStringLiteral("container"), m_containerId},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("path"), hostPath}},
                      this, [this, remaining, total, done, failed, name](Result<QJsonObject> result) mutable {
                          if (result)
                              done.append(Format::displayName(name));
                          else
                              failed.append(
                                  tr("• %1: %2").arg(Format::displayName(name), result.error().message()));
                          uploadNext(remaining, total, done, failed);
                      });
}

QModelIndexList FileBrowser::selectedRows() const
{
    return m_view->selectionModel()->selectedRows(WorkspaceFileModel::NameColumn);
}

QList<FileBrowser::Transfer> FileBrowser::transfersFor(const QModelIndexList &rows) const
{
    QList<Transfer> transfers;
    QSet<QString> seen;
    auto add = [&](const QString &scope, const QString &path) {
        const QString key = scope + QLatin1Char(':') + path;
        if (seen.contains(key))
            return;
        seen.insert(key);
        transfers.append({scope, path});
    };
    for (const QModelIndex &row : rows) {
        const QModelIndex index = row.siblingAtColumn(WorkspaceFileModel::NameColumn);
        const QString scope = index.data(WorkspaceFileModel::ScopeRole).toString();
        const QString path = index.data(WorkspaceFileModel::PathRole).toString();
        if (index.data(WorkspaceFileModel::IsFileRole).toBool() || path.isEmpty()) {
            add(scope, path);
            continue;
        }
        // A folder: the files below it (the daemon copies one file or a whole scope).
        const QModelIndexList files =
            m_model->match(m_model->index(0, 0, index), WorkspaceFileModel::IsFileRole, true, -1,
                           Qt::MatchExactly | Qt::MatchRecursive);
        for (const QModelIndex &file : files)
            add(scope, file.data(WorkspaceFileModel::PathRole).toString());
    }
    return transfers;
}

void FileBrowser::chooseDownload()
{
    const QModelIndexList rows = selectedRows();
    if (rows.isEmpty())
        return;
    const QString destination = QFileDialog::getExistingDirectory(this, tr("Download To"));
    if (!destination.isEmpty())
        downloadTo(destination, rows);
}

void FileBrowser::downloadTo(const QString &destination, const QModelIndexList &rows)
{
    const QList<Transfer> transfers = transfersFor(rows);
    if (m_containerId.isEmpty() || transfers.isEmpty())
        return;
    setMessage(QString());
    setBusy(true);
    m_progress->setRange(0, 0);
    downloadNext(QDir(destination).absolutePath(), transfers, {}, {}, {});
}

void FileBrowser::downloadNext(QString destination, QList<Transfer> remaining, QJsonArray copied,
                               QJsonArray refused, QStringList errors)
{
    if (remaining.isEmpty()) {
        setBusy(false);
        QStringList lines;
        // Both counts in the first line: "Downloaded 0 files" above a list of refusals reads like success.
        if (copied.isEmpty() && !refused.isEmpty())
            lines.append(refused.size() == 1
                             ? tr("Nothing was downloaded to %1: 1 file was refused.").arg(destination)
                             : tr("Nothing was downloaded to %1: %2 files were refused.")
                                   .arg(destination)
                                   .arg(refused.size()));
        else
            lines.append(copied.size() == 1
                             ? tr("Downloaded 1 file to %1.").arg(destination)
                             : tr("Downloaded %1 files to %2.").arg(copied.size()).arg(destination));
        if (!refused.isEmpty()) {
            lines.append(refused.size() == 1 ? tr("Refused 1 file, not copied:")
                                             : tr("Refused %1 files, not copied:").arg(refused.size()));
            for (const QJsonValue &entry : std::as_const(refused))
                lines.append(refusalLine(entry.toObject()));
        }
        lines.append(errors);
        setMessage(lines.join(QLatin1Char('\n')), !refused.isEmpty() || !errors.isEmpty());
        Q_EMIT operationFinished();
        return;
    }
    const Transfer transfer = remaining.takeFirst();
    m_connection.call(
        QStringLiteral("file.download"),
        {{QStringLiteral("container"), m_containerId},
         {QStringLiteral("scope"), transfer.scope},
         {QStringLiteral("path"), transfer.path},
         {QStringLiteral("destination"), destination}},
        this,
        [this, destination, remaining, copied, refused, errors,
         transfer](Result<QJsonObject> result) mutable {
            if (result) {
                for (const QJsonValue &entry : result->value(QStringLiteral("copied")).toArray())
                    copied.append(entry);
                for (const QJsonValue &entry : result->value(QStringLiteral("refused")).toArray())
                    refused.append(entry);
            } else if (result.error().code().startsWith(QLatin1String("files.")) &&
                       result.error().code() != QLatin1String("files.destination")) {
                // One file's refusal comes back as the request's error.
                refused.append(QJsonObject{{QStringLiteral("path"), transfer.path},
                                           {QStringLiteral("code"), result.error().code()},
                                           {QStringLiteral("reason"), result.error().message()}});
            } else {
                errors.append(tr("Download failed: %1").arg(result.error().message()));
                remaining.clear();
            }
            downloadNext(destination, remaining, copied, refused, errors);
        });
}

void FileBrowser::confirmDelete()
{
    const QModelIndexList rows = selectedRows();
    QStringList names;
    for (const Transfer &transfer : transfersFor(rows)) {
        if (!transfer.path.isEmpty())
            names.append(Format::displayName(transfer.scope + QLatin1Char('/') + transfer.path));
    }
    if (names.isEmpty())
        return;
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Delete Files"),
                        names.size() == 1 ? tr("Delete 1 file from the container?")
                                          : tr("Delete %1 files from the container?").arg(names.size()),
                        QMessageBox::Cancel, this);
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(names.mid(0, 12).join(QLatin1Char('\n')) +
                            (names.size() > 12 ? tr("\n… and %1 more").arg(names.size() - 12) : QString()));
    QPushButton *confirm = box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("deleteFilesConfirmation"));
    connect(box, &QMessageBox::finished, this, [this, box, confirm, rows] {
        if (box->clickedButton() == confirm)
            deleteRows(rows);
    });
    box->open();
}

void FileBrowser::deleteRows(const QModelIndexList &rows)
{
    QList<Transfer> transfers;
    for (const Transfer &transfer : transfersFor(rows)) {
        if (!transfer.path.isEmpty())
            transfers.append(transfer);
    }
    if (m_containerId.isEmpty() || transfers.isEmpty())
        return;
    setMessage(QString());
    setBusy(true);
    m_progress->setRange(0, 0);
    deleteNext(transfers, {});
}

void FileBrowser::deleteNext(QList<Transfer> remaining, QStringList errors)
{
    if (remaining.isEmpty()) {
        setBusy(false);
        setMessage(errors.isEmpty() ? QString() : tr("Not deleted:\n%1").arg(errors.join(QLatin1Char('\n'))),
                   !errors.isEmpty());
        refresh();
        Q_EMIT operationFinished();
        return;
    }
    const Transfer transfer = remaining.takeFirst();
    m_connection.call(
        QStringLiteral("file.delete"),
        {{QStringLiteral("container"), m_containerId},
         {QStringLiteral("scope"), transfer.scope},
         {QStringLiteral("path"), transfer.path}},
        this, [this, remaining, errors, transfer](Result<QJsonObject> result) mutable {
            if (!result)
                errors.append(
                    tr("• %1: %2").arg(Format::displayName(transfer.path), result.error().message()));
            deleteNext(remaining, errors);
        });
}

void FileBrowser::preview(const QModelIndex &row)
{
    const QModelIndex index = row.siblingAtColumn(WorkspaceFileModel::NameColumn);
    if (!index.data(WorkspaceFileModel::IsFileRole).toBool() || m_containerId.isEmpty())
        return;
    const QString scope = index.data(WorkspaceFileModel::ScopeRole).toString();
    const QString path = index.data(WorkspaceFileModel::PathRole).toString();
    const qint64 size = index.data(WorkspaceFileModel::SizeRole).toLongLong();
    const QString name = Format::displayName(path.section(QLatin1Char('/'), -1));
    m_previewCaption->setText(
        tr("%1 · %2").arg(Format::displayName(scope + QLatin1Char('/') + path), Format::bytes(size)));
    if (size > MaxPreviewBytes) {
        showPreviewMessage(
            tr("%1 is %2: too large to preview. Download it instead.").arg(name, Format::bytes(size)));
        return;
    }
    // A fresh private directory each time: the safe copy never replaces a file, and an old preview's file
    // must not be mistaken for this one.
    m_previewDir = std::make_unique<QTemporaryDir>();
    if (!m_previewDir->isValid()) {
        showPreviewMessage(tr("No preview: cannot create a temporary folder."));
        return;
    }
    showPreviewMessage(tr("Loading %1…").arg(name));
    const QString destination = m_previewDir->path();
    const quint64 generation = ++m_previewGeneration;
    m_connection.call(QStringLiteral("file.download"),
                      {{QStringLiteral("container"), m_containerId},
                       {QStringLiteral("scope"), scope},
                       {QStringLiteral("path"), path},
                       {QStringLiteral("destination"), destination}},
                      this, [this, generation, destination, name](Result<QJsonObject> result) {
                          if (generation != m_previewGeneration)
                              return; // another file was selected meanwhile
                          if (!result) {
                              showPreviewMessage(tr("No preview of %1: %2")
                                                     .arg(name, refusalWords(result.error().code(),
                                                                             result.error().message())));
                              return;
                          }
                          const QJsonArray copied = result->value(QStringLiteral("copied")).toArray();
                          if (copied.isEmpty()) {
                              showPreviewMessage(tr("No preview of %1: nothing was copied.").arg(name));
                              return;
                          }
                          const QString local = QDir(destination)
                                                    .filePath(copied.first()
                                                                  .toObject()
                                                                  .value(QStringLiteral("path"))
                                                                  .toString()
                                                                  .section(QLatin1Char('/'), -1));
                          showPreviewFile(local, name);
                      });
}

void FileBrowser::showPreviewFile(const QString &localPath, const QString &name)
{
    QFile file(localPath);
    if (!file.open(QIODevice::ReadOnly)) {
        showPreviewMessage(tr("No preview of %1: %2").arg(name, file.errorString()));
        return;
    }
    const qint64 size = file.size();
    QImageReader reader(&file);
    const QByteArray format = reader.format();
    if (format == "png" || format == "jpeg") {
        const QImage image = reader.read();
        if (image.isNull()) {
            showPreviewMessage(tr("%1 is not a readable image: %2").arg(name, reader.errorString()));
            return;
        }
        m_previewImage = image;
        const QSize fit = image.size().boundedTo(QSize(1600, 1600));
        m_imagePreview->setPixmap(
            QPixmap::fromImage(image.scaled(fit, Qt::KeepAspectRatio, Qt::SmoothTransformation)));
        m_imagePreview->setToolTip(tr("%1 × %2 pixels").arg(image.width()).arg(image.height()));
        m_previewPages->setCurrentIndex(3);
        return;
    }
    file.seek(0);
    const QByteArray head = file.read(PreviewTextBytes);
    const bool complete = size <= PreviewTextBytes;
    if (head.contains('\0')) {
        showPreviewMessage(tr("%1 is a binary file (%2): no preview.").arg(name, Format::bytes(size)));
        return;
    }
    const QString text = QString::fromUtf8(head);
    const QString suffix = QFileInfo(localPath).suffix().toLower();
    if (suffix == QLatin1String("csv") || suffix == QLatin1String("tsv")) {
        const CsvTable table = CsvTable::parse(text, PreviewMaxRows, complete);
        int columns = 0;
        for (const QStringList &row : table.rows)
            columns = qMax(columns, int(row.size()));
        const bool header = table.rows.size() > 1;
        m_tablePreview->clear();
        m_tablePreview->setColumnCount(columns);
        m_tablePreview->setRowCount(int(table.rows.size()) - (header ? 1 : 0));
        if (header)
            m_tablePreview->setHorizontalHeaderLabels(table.rows.first());
        for (int r = header ? 1 : 0, out = 0; r < table.rows.size(); ++r, ++out) {
            const QStringList &row = table.rows.at(r);
            for (int c = 0; c < row.size(); ++c)
                m_tablePreview->setItem(out, c, new QTableWidgetItem(row.at(c)));
        }
        m_tablePreview->resizeColumnsToContents();
        m_previewPages->setCurrentIndex(2);
        if (table.truncated)
            m_previewCaption->setText(m_previewCaption->text() +
                                      tr(" · the first %1 rows").arg(m_tablePreview->rowCount()));
        return;
    }
    m_textPreview->setPlainText(text);
    m_previewPages->setCurrentIndex(1);
    if (!complete)
        m_previewCaption->setText(m_previewCaption->text() +
                                  tr(" · the first %1").arg(Format::bytes(PreviewTextBytes)));
}

void FileBrowser::showPreviewMessage(const QString &text)
{
    m_previewNote->setText(text);
    m_previewPages->setCurrentIndex(0);
}

void FileBrowser::setBusy(bool busy)
{
    const bool was = m_busy > 0;
    m_busy = qMax(0, m_busy + (busy ? 1 : -1));
    m_progress->setVisible(m_busy > 0);
    if (was != (m_busy > 0))
        Q_EMIT busyChanged(m_busy > 0);
    updateActions();
}

void FileBrowser::setMessage(const QString &text, bool problem)
{
    // A problem stands out in the tooltip colours, which every palette makes readable.
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
    m_message->setAutoFillBackground(problem);
    m_message->setBackgroundRole(problem ? QPalette::ToolTipBase : QPalette::Window);
    m_message->setForegroundRole(problem ? QPalette::ToolTipText : QPalette::WindowText);
}

void FileBrowser::updateActions()
{
    const bool live = m_state == QLatin1String("running") || m_state == QLatin1String("stopped");
    const bool usable = live && m_connection.isConnected() && !m_containerId.isEmpty();
    const bool idle = m_busy == 0;
    const QList<Transfer> selected = transfersFor(selectedRows());
    bool anyFile = false;
    for (const Transfer &transfer : selected)
        anyFile = anyFile || !transfer.path.isEmpty();
    m_refreshAction->setEnabled(usable);
    m_uploadAction->setEnabled(usable && idle);
    m_downloadAction->setEnabled(usable && idle && !selected.isEmpty());
    m_downloadAllAction->setEnabled(usable && idle);
    m_deleteAction->setEnabled(usable && idle && anyFile);
    m_view->viewport()->setAcceptDrops(usable);
}

bool FileBrowser::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_view->viewport())
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::DragEnter:
    case QEvent::DragMove: {
        auto *drag = static_cast<QDragMoveEvent *>(event);
        if (!localFiles(drag->mimeData()).isEmpty() && m_uploadAction->isEnabled()) {
            drag->setDropAction(Qt::CopyAction);
            drag->accept();
        } else {
            drag->ignore();
        }
        return true;
    }
    case QEvent::Drop: {
        auto *drop = static_cast<QDropEvent *>(event);
        if (m_uploadAction->isEnabled()) {
            uploadDropped(drop->mimeData());
            drop->setDropAction(Qt::CopyAction);
            drop->accept();
        }
        return true;
    }
    default:
        return QWidget::eventFilter(watched, event);
    }
}

} // namespace Cordon::Ui
