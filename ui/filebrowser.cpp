// SPDX-License-Identifier: MIT
#include "filebrowser.h"

#include "core/formatting.h"
#include "csvtable.h"
#include "csvuploaddialog.h"
#include "daemonconnection.h"
#include "downloadreport.h"
#include "scanfindingsdialog.h"
#include "workbenchsettings.h"
#include "workspacefilemodel.h"

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
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
      m_imagePreview(new QLabel(this)), m_openFolderButton(new QPushButton(tr("&Open Folder"), this)),
      m_refreshAction(new QAction(tr("&Refresh"), this)), m_uploadAction(new QAction(tr("&Upload…"), this)),
      m_downloadAction(new QAction(tr("&Download…"), this)),
      m_downloadAllAction(new QAction(tr("Download &All Outputs…"), this)),
      m_deleteAction(new QAction(tr("De&lete…"), this))
{
    m_refreshAction->setObjectName(QStringLiteral("refreshFilesAction"));
    m_refreshAction->setToolTip(tr("List the container's files again"));
    m_uploadAction->setObjectName(QStringLiteral("uploadFilesAction"));
    // Within the Files tab (Ctrl+4 goes there), so that an upload needs no mouse.
    m_uploadAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));
    m_uploadAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_uploadAction);
    m_uploadAction->setToolTip(
        tr("Copy files from this computer into inputs/ (read-only inside; Ctrl+U); dropping files on the "
           "list does the same"));
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
        const QString destination = QFileDialog::getExistingDirectory(this, tr("Download All Outputs To"),
                                                                      WorkbenchSettings::downloadFolder());
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
    // A tool bar's buttons take no focus by default: Tab reaches them here, before the tree.
    QWidget *previous = nullptr;
    for (QAction *action : toolbar->actions()) {
        QWidget *button = toolbar->widgetForAction(action);
        if (!button || action->isSeparator())
            continue;
        button->setFocusPolicy(Qt::TabFocus);
        if (previous)
            setTabOrder(previous, button);
        previous = button;
    }
    if (previous)
        setTabOrder(previous, m_view);

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
    // Names, sizes and the scan's verdict are read whole; the hash, least often needed (the tooltip has it
    // whole), takes what room is left and is elided first in a narrow window.
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::NameColumn, QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::SizeColumn, QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::ScanColumn, QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(WorkspaceFileModel::HashColumn, QHeaderView::Stretch);
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
    m_openFolderButton->setObjectName(QStringLiteral("openDownloadFolderButton"));
    m_openFolderButton->setToolTip(tr("Show the folder the files were downloaded to in the file manager"));
    connect(m_openFolderButton, &QPushButton::clicked, this, [this] {
        if (!QDesktopServices::openUrl(QUrl::fromLocalFile(m_downloadFolder)))
            setMessage(m_result + tr("\nThe folder could not be opened: no file manager answered."), true);
    });
    m_messageBar = new QWidget(this);
    m_messageBar->setObjectName(QStringLiteral("fileMessageBar"));
    auto *messageLayout = new QHBoxLayout(m_messageBar);
    messageLayout->setContentsMargins(0, 0, 8, 0);
    messageLayout->addWidget(m_message, 1);
    messageLayout->addWidget(m_openFolderButton, 0, Qt::AlignTop);
    m_messageBar->hide();
    m_openFolderButton->hide();
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
    layout->addWidget(m_messageBar);
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
        setListingNotes(QString());
        setMessage(QString());
        resetPreview(tr("Select a file to preview it.\nDrop files here to upload them into inputs/."));
    }
    if (state == QLatin1String("expired") || state == QLatin1String("deleted")) {
        m_model->clearFiles();
        setListingNotes(QString());
        setMessage(tr("This container has expired: its files are gone."));
        resetPreview(tr("Nothing to preview: the container expired and its files were deleted."));
    }
    updateActions();
    refresh();
}

QString FileBrowser::message() const
{
    return m_message->text();
}

QString FileBrowser::previewCaption() const
{
    return m_previewCaption->text();
}

QString FileBrowser::previewMessage() const
{
    return m_previewNote->text();
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
    auto flagged =
        std::make_shared<QStringList>(); // "outputs/x.txt" for each file a download would keep back
    auto warned = std::make_shared<int>(0);
    for (const QString &scope : WorkspaceFileModel::scopes()) {
        // What programs wrote is scanned as a download would scan it, so that its findings show before
        // anything is downloaded; inputs are what the user put in.
        QJsonObject params{{QStringLiteral("container"), id}, {QStringLiteral("scope"), scope}};
        if (scope != QLatin1String("inputs"))
            params.insert(QStringLiteral("scan"), true);
        m_connection.call(
            QStringLiteral("file.list"), params, this,
            [this, generation, id, scope, notes, pending, flagged, warned](Result<QJsonObject> result) {
                // A newer listing (or another container) makes this answer stale.
                if (generation != m_listGeneration || id != m_containerId)
                    return;
                if (!result) {
                    notes->append(
                        tr("%1 could not be listed: %2").arg(scope, toQt(result.error().message())));
                } else {
                    const QModelIndex current = m_view->selectionModel()->currentIndex();
                    const QString currentScope = current.data(WorkspaceFileModel::ScopeRole).toString();
                    const QString currentPath = current.data(WorkspaceFileModel::PathRole).toString();
                    m_relisting = true;
                    const QJsonArray scanned = result->value(QStringLiteral("scanned")).toArray();
                    m_model->setFiles(scope, result->value(QStringLiteral("files")).toArray(), scanned);
                    for (const QJsonValue &entry : scanned) {
                        if (entry[QStringLiteral("action")].toString() == QLatin1String("blocked"))
                            flagged->append(Format::displayName(scope + QLatin1Char('/') +
                                                                entry[QStringLiteral("shown")].toString()));
                        else
                            ++*warned;
                    }
                    // The file the user was on stays selected when it is still there.
                    if (currentScope == scope) {
                        const QModelIndex again = m_model->indexOf(scope, currentPath);
                        if (again.isValid())
                            m_view->selectionModel()->setCurrentIndex(
                                again, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
                    }
                    m_relisting = false;
                    // A file deleted since it was previewed is not shown as if it were still there.
                    if (m_previewScope == scope && !m_model->indexOf(scope, m_previewPath).isValid())
                        resetPreview(tr("%1 is no longer in the container.")
                                         .arg(Format::displayName(scope + QLatin1Char('/') + m_previewPath)));
                    for (const QJsonValue &refused : result->value(QStringLiteral("refused")).toArray())
                        notes->append(
                            tr("Not listed in %1/: %2").arg(scope, refusalLine(refused.toObject()).mid(2)));
                    if (result->value(QStringLiteral("truncated")).toBool())
                        notes->append(tr("%1 has more files than are listed.").arg(scope));
                }
                if (--*pending == 0 && (!flagged->isEmpty() || *warned > 0))
                    notes->append(scanNote(*flagged, *warned));
                if (*pending == 0)
                    setListingNotes(notes->join(QLatin1Char('\n')));
                updateActions();
            });
    }
}

QString FileBrowser::scanNote(const QStringList &keptBack, int warned)
{
    QStringList sentences;
    if (keptBack.size() == 1)
        sentences << tr("The artifact scan found what must not leave in %1: a download would keep it back.")
                         .arg(keptBack.first());
    else if (!keptBack.isEmpty())
        sentences << tr("The artifact scan found what must not leave in %1 files (%2): a download would keep "
                        "them back.")
                         .arg(keptBack.size())
                         .arg(keptBack.join(QStringLiteral(", ")));
    const bool more = !keptBack.isEmpty();
    if (warned == 1)
        sentences << (more ? tr("1 more file has findings worth a look.")
                           : tr("The artifact scan found something worth a look in 1 file."));
    else if (warned > 1)
        sentences << (more ? tr("%1 more files have findings worth a look.")
                           : tr("The artifact scan found something worth a look in %1 files."))
                         .arg(warned);
    sentences << tr("The Scan column says which; hover over it for the findings.");
    return sentences.join(QLatin1Char(' '));
}

void FileBrowser::chooseUpload()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Upload Files into inputs/"),
                                                            WorkbenchSettings::uploadFolder());
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
    // The next Upload dialog opens where these came from.
    WorkbenchSettings::setUploadFolder(QFileInfo(hostPaths.constFirst()).absolutePath());
    setMessage(QString());
    setBusy(true);
    m_progress->setRange(0, int(hostPaths.size()));
    m_progress->setValue(0);
    uploadNext(m_containerId, hostPaths, int(hostPaths.size()), {}, {});
}

void FileBrowser::uploadNext(const QString &containerId, QStringList remaining, int total, QStringList done,
                             QStringList failed)
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
        uploadNext(containerId, remaining, total, done, failed);
        return;
    }
    const auto send = [this, containerId, remaining, total, done, failed, name,
                       hostPath](const QJsonObject &pseudonymize) {
        QJsonObject params{{QStringLiteral("container"), containerId},
                           {QStringLiteral("name"), name},
                           {QStringLiteral("path"), hostPath}};
        if (!pseudonymize.isEmpty())
            params.insert(QStringLiteral("pseudonymize"), pseudonymize);
        m_connection.call(
            QStringLiteral("file.upload"), params, this,
            [this, containerId, remaining, total, done, failed, name](Result<QJsonObject> result) mutable {
                if (!result) {
                    failed.append(
                        tr("• %1: %2").arg(Format::displayName(name), toQt(result.error().message())));
                    return uploadNext(containerId, remaining, total, done, failed);
                }
                const QJsonObject pseudonymized = result->value(QStringLiteral("file"))
                                                      .toObject()
                                                      .value(QStringLiteral("pseudonymized"))
                                                      .toObject();
                QStringList columns;
                for (const QJsonValue &column : pseudonymized.value(QStringLiteral("columns")).toArray())
                    columns.append(Format::displayName(column.toString()));
                done.append(columns.isEmpty()
                                ? Format::displayName(name)
                                : tr("%1 (pseudonymised: %2)")
                                      .arg(Format::displayName(name), columns.join(QStringLiteral(", "))));
                uploadNext(containerId, remaining, total, done, failed);
            });
    };
    // A table may hold personal data: the user chooses the columns that reach the container as pseudonyms
    // (docs/pseudonymize.md).
    const QString suffix = QFileInfo(hostPath).suffix().toLower();
    if (suffix != QLatin1String("csv") && suffix != QLatin1String("tsv"))
        return send({});
    auto *dialog = new CsvUploadDialog(m_connection, hostPath, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::finished, this,
            [this, dialog, send, containerId, remaining, total, done, failed, name](int outcome) mutable {
                if (outcome == QDialog::Accepted)
                    return send(dialog->pseudonymizeRequest());
                failed.append(tr("• %1: not uploaded (cancelled)").arg(Format::displayName(name)));
                uploadNext(containerId, remaining, total, done, failed);
            });
    dialog->open();
}

QModelIndexList FileBrowser::selectedRows() const
{
    return m_view->selectionModel()->selectedRows(WorkspaceFileModel::NameColumn);
}

QModelIndexList FileBrowser::filesBelow(const QModelIndex &folder) const
{
    return m_model->match(m_model->index(0, 0, folder), WorkspaceFileModel::IsFileRole, true, -1,
                          Qt::MatchExactly | Qt::MatchRecursive);
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
        transfers.append({scope, path, {}});
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
        for (const QModelIndex &file : filesBelow(index))
            add(scope, file.data(WorkspaceFileModel::PathRole).toString());
    }
    return transfers;
}

void FileBrowser::chooseDownload()
{
    const QModelIndexList rows = selectedRows();
    if (rows.isEmpty())
        return;
    const QString destination =
        QFileDialog::getExistingDirectory(this, tr("Download To"), WorkbenchSettings::downloadFolder());
    if (!destination.isEmpty())
        downloadTo(destination, rows);
}

void FileBrowser::downloadTo(const QString &destination, const QModelIndexList &rows)
{
    const QList<Transfer> transfers = transfersFor(rows);
    if (m_containerId.isEmpty() || transfers.isEmpty())
        return;
    const QString folder = QDir(destination).absolutePath();
    const QStringList taken = takenNames(folder, transfers);
    if (taken.isEmpty())
        startDownload(folder, transfers, QStringLiteral("refuse"), false);
    else
        askAboutTakenNames(folder, transfers, taken);
}

QStringList FileBrowser::takenNames(const QString &destination, const QList<Transfer> &transfers) const
{
    // What each transfer would write: a single file lands under its own name, a scope keeps its tree. The
    // daemon refuses any name that appears after this look, so this only decides whether to ask.
    QStringList names;
    auto check = [&](const QString &relative) {
        const QFileInfo there(destination + QLatin1Char('/') + relative);
        if ((there.exists() || there.isSymLink()) && !names.contains(relative))
            names.append(relative);
    };
    for (const Transfer &transfer : transfers) {
        if (!transfer.path.isEmpty()) {
            check(transfer.path.section(QLatin1Char('/'), -1));
            continue;
        }
        for (const QModelIndex &file : filesBelow(m_model->rootIndex(transfer.scope)))
            check(file.data(WorkspaceFileModel::PathRole).toString());
    }
    return names;
}

void FileBrowser::askAboutTakenNames(const QString &destination, const QList<Transfer> &transfers,
                                     const QStringList &taken)
{
    QStringList shown;
    for (const QString &name : taken)
        shown.append(Format::displayName(name));
    auto *box = new QMessageBox(QMessageBox::Question, tr("Files Already There"),
                                taken.size() == 1
                                    ? tr("%1 already exists in %2.").arg(shown.constFirst(), destination)
                                    : tr("%1 files already exist in %2.").arg(taken.size()).arg(destination),
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("downloadConflictDialog"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(
        (taken.size() == 1
             ? QString()
             : shown.mid(0, 12).join(QLatin1Char('\n')) +
                   (shown.size() > 12 ? tr("\n… and %1 more").arg(shown.size() - 12) : QString()) +
                   QStringLiteral("\n\n")) +
        tr("Replace overwrites the file there; Keep Both saves the download as \"name (2)\"; Skip leaves "
           "those out and downloads the rest."));
    QPushButton *replace = box->addButton(tr("&Replace"), QMessageBox::DestructiveRole);
    replace->setObjectName(QStringLiteral("replaceButton"));
    QPushButton *keepBoth = box->addButton(tr("Keep &Both"), QMessageBox::AcceptRole);
    keepBoth->setObjectName(QStringLiteral("keepBothButton"));
    QPushButton *skip = box->addButton(tr("&Skip"), QMessageBox::RejectRole);
    skip->setObjectName(QStringLiteral("skipButton"));
    box->setDefaultButton(keepBoth);
    box->setEscapeButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, replace, keepBoth, skip, destination, transfers] {
        if (box->clickedButton() == replace)
            startDownload(destination, transfers, QStringLiteral("replace"), false);
        else if (box->clickedButton() == keepBoth)
            startDownload(destination, transfers, QStringLiteral("keep_both"), false);
        else if (box->clickedButton() == skip)
            startDownload(destination, transfers, QStringLiteral("refuse"), true);
    });
    box->open();
}

void FileBrowser::startDownload(const QString &destination, const QList<Transfer> &transfers,
                                const QString &existing, bool skipTaken)
{
    // The next Download dialog opens here.
    WorkbenchSettings::setDownloadFolder(destination);
    setMessage(QString());
    setBusy(true);
    m_progress->setRange(0, 0);
    downloadNext(transfers, existing, std::make_shared<DownloadReport>(destination, skipTaken));
}

void FileBrowser::downloadNext(QList<Transfer> remaining, const QString &existing,
                               const std::shared_ptr<DownloadReport> &report, const QString &overrideReason)
{
    if (remaining.isEmpty()) {
        setBusy(false);
        setMessage(report->summary(), report->hasProblems());
        m_downloadFolder = report->destination();
        m_openFolderButton->setVisible(report->copiedCount() > 0);
        Q_EMIT operationFinished();
        if (overrideReason.isEmpty() && !report->blockedPaths().isEmpty())
            offerDownloadAnyway(report, existing);
        return;
    }
    const Transfer transfer = remaining.takeFirst();
    QJsonObject params{{QStringLiteral("container"), m_containerId},
                       {QStringLiteral("scope"), transfer.scope},
                       {QStringLiteral("path"), transfer.path},
                       {QStringLiteral("destination"),
                        transfer.into.isEmpty() ? report->destination()
                                                : report->destination() + QLatin1Char('/') + transfer.into},
                       {QStringLiteral("existing"), existing}};
    if (!overrideReason.isEmpty())
        params.insert(QStringLiteral("override_reason"), overrideReason);
    m_connection.call(
        QStringLiteral("file.download"), params, this,
        [this, remaining, existing, report, transfer, overrideReason](Result<QJsonObject> result) mutable {
            // One file's refusal leaves the others to try; anything else ends the download.
            if (result)
                report->addAnswer(*result, transfer.scope, transfer.path);
            else if (!report->addFailure(transfer.path, result.error()))
                remaining.clear();
            downloadNext(remaining, existing, report, overrideReason);
        });
}

void FileBrowser::offerDownloadAnyway(const std::shared_ptr<DownloadReport> &report, const QString &existing)
{
    auto *dialog = new ScanFindingsDialog(report->scanned(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QString containerId = m_containerId;
    connect(dialog, &QDialog::accepted, this, [this, dialog, report, existing, containerId] {
        if (containerId != m_containerId || m_containerId.isEmpty())
            return; // another container was chosen meanwhile
        QList<Transfer> blocked;
        for (const QJsonValue &entry : report->scanned()) {
            const QJsonObject file = entry.toObject();
            if (file.value(QStringLiteral("action")).toString() != QLatin1String("blocked"))
                continue;
            // From a whole scope the file goes where that download would have put it: its folder below the
            // destination. A file asked for alone lands in the destination itself, as it would have.
            const QString path = file.value(QStringLiteral("path")).toString();
            const bool fromScope = file.value(QStringLiteral("transfer")).toString().isEmpty();
            const QString folder =
                path.contains(QLatin1Char('/')) ? path.section(QLatin1Char('/'), 0, -2) : QString();
            blocked.append(
                {file.value(QStringLiteral("scope")).toString(), path, fromScope ? folder : QString()});
        }
        setMessage(QString());
        setBusy(true);
        m_progress->setRange(0, 0);
        // The files downloaded or refused before stay in the message; the ones asked for again are told of
        // anew.
        downloadNext(blocked, existing, std::make_shared<DownloadReport>(report->withoutBlocked()),
                     dialog->reason());
    });
    dialog->open();
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
                    tr("• %1: %2").arg(Format::displayName(transfer.path), toQt(result.error().message())));
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
    m_previewScope = scope;
    m_previewPath = path;
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
    m_connection.call(
        QStringLiteral("file.download"),
        {{QStringLiteral("container"), m_containerId},
         {QStringLiteral("scope"), scope},
         {QStringLiteral("path"), path},
         {QStringLiteral("destination"), destination}},
        this, [this, generation, destination, name](Result<QJsonObject> result) {
            if (generation != m_previewGeneration)
                return; // another file was selected meanwhile
            if (!result) {
                showPreviewMessage(tr("No preview of %1: %2")
                                       .arg(name, refusalWords(toQt(result.error().code()),
                                                               toQt(result.error().message()))));
                return;
            }
            const QJsonArray copied = result->value(QStringLiteral("copied")).toArray();
            if (copied.isEmpty()) {
                // The artifact scan keeps a file back from a preview as from a download.
                const QJsonArray refused = result->value(QStringLiteral("refused")).toArray();
                const QJsonObject first = refused.isEmpty() ? QJsonObject() : refused.first().toObject();
                showPreviewMessage(
                    refused.isEmpty()
                        ? tr("No preview of %1: nothing was copied.").arg(name)
                        : tr("No preview of %1: %2")
                              .arg(name, refusalWords(first.value(QStringLiteral("code")).toString(),
                                                      first.value(QStringLiteral("reason")).toString())));
                return;
            }
            const QString local =
                QDir(destination)
                    .filePath(copied.first().toObject().value(QStringLiteral("saved_as")).toString());
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

void FileBrowser::resetPreview(const QString &note)
{
    // An answer still on its way belongs to the old preview; so does the caption naming its file.
    ++m_previewGeneration;
    m_previewDir.reset();
    m_previewScope.clear();
    m_previewPath.clear();
    m_previewCaption->clear();
    showPreviewMessage(note);
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
    m_result = text;
    m_resultProblem = problem;
    showMessages();
    // Open Folder belongs to the download the message reports; any other message takes it away.
    m_openFolderButton->hide();
}

void FileBrowser::setListingNotes(const QString &text)
{
    m_listingNotes = text;
    showMessages();
}

void FileBrowser::showMessages()
{
    QStringList parts;
    for (const QString &part : {m_result, m_listingNotes}) {
        if (!part.isEmpty())
            parts.append(part);
    }
    const QString text = parts.join(QLatin1Char('\n'));
    // A problem stands out in the tooltip colours, which every palette makes readable; the scan's notes are
    // one.
    const bool problem = m_resultProblem || !m_listingNotes.isEmpty();
    m_message->setText(text);
    m_messageBar->setVisible(!text.isEmpty());
    m_messageBar->setAutoFillBackground(problem);
    m_messageBar->setBackgroundRole(problem ? QPalette::ToolTipBase : QPalette::Window);
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
