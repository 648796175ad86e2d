// SPDX-License-Identifier: MIT
// The selected container's files: a tree of inputs/, outputs/ and the workspace (`file.list`), refreshed
// after every run and on demand; upload by button or by dropping files on the tree (`file.upload` with the
// host path); download to a chosen folder (`file.download`, which refuses symlinks, fifos and the like, and
// says so); delete after confirmation; and a preview of text, CSV and PNG/JPEG files. A preview is fetched
// through the same safe download into a private temporary directory: the container's directory on the host is
// never read directly.
#pragma once

#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QModelIndexList>
#include <QWidget>

#include <memory>

class QAction;
class QLabel;
class QMimeData;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QTemporaryDir;
class QTreeView;

namespace Cordon::Ui {

class DaemonConnection;
class DownloadReport;
class WorkspaceFileModel;

class FileBrowser final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileBrowser)

public:
    // Previews read at most this much of a text or CSV file, and fetch nothing larger than MaxPreviewBytes.
    static constexpr qint64 PreviewTextBytes = 64 * 1024;
    static constexpr qint64 MaxPreviewBytes = 32 * 1024 * 1024;

    explicit FileBrowser(DaemonConnection &connection, QWidget *parent = nullptr);
    ~FileBrowser() override;

    // The container whose files are shown; an empty object for none.
    void setContainer(const QJsonObject &container);
    WorkspaceFileModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    // What the last operation reported: refusals, errors, what was copied (plain text).
    QString message() const;
    bool isBusy() const { return m_busy > 0; }

    // Lists the three scopes again.
    void refresh();
    // Uploads local files into inputs/ one after another; the drop handler and the Upload button end here.
    void uploadFiles(const QStringList &hostPaths);
    // What a drop on the tree does: the local files among the URLs are uploaded.
    void uploadDropped(const QMimeData *mime);
    // Copies the given rows (files, or a whole scope root) into `destination` (an absolute folder). When
    // names are already taken there, asks first (Replace, Keep Both, Skip or Cancel: the dialog is
    // "downloadConflictDialog"). Afterwards "Open Folder" shows the destination.
    void downloadTo(const QString &destination, const QModelIndexList &rows);
    // The folder of the last download that copied something ("Open Folder" opens it).
    QString downloadFolder() const { return m_downloadFolder; }
    QPushButton *openFolderButton() const { return m_openFolderButton; }
    // Deletes the given rows without asking (the Delete action asks first).
    void deleteRows(const QModelIndexList &rows);
    // Shows the file at `row` in the preview pane.
    void preview(const QModelIndex &row);

    // The preview pane's current page, for tests: "none", "text", "table", "image" or "message".
    QString previewKind() const;
    // The note the preview pane shows on its "message" page ("Loading …", "No preview of …").
    QString previewMessage() const;
    QPlainTextEdit *textPreview() const { return m_textPreview; }
    // The line above the preview naming the file ("outputs/result.txt · 12 B"); empty without a file.
    QString previewCaption() const;
    QTableWidget *tablePreview() const { return m_tablePreview; }
    // The image shown by the image preview, at its own size (before scaling to fit).
    QImage imagePreview() const { return m_previewImage; }

Q_SIGNALS:
    void busyChanged(bool busy);
    // An operation ended; message() says how.
    void operationFinished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Transfer
    {
        QString scope;
        QString path; // empty: the whole scope
        QString into; // a folder below the destination to save it in; empty: the destination itself
    };

    // What the scan of a listing found, in a sentence: the files a download would keep back (named), and how
    // many more have warnings.
    static QString scanNote(const QStringList &keptBack, int warned);
    void chooseUpload();
    void chooseDownload();
    void confirmDelete();
    // Uploads go to the container they were started for, also when another is chosen meanwhile.
    void uploadNext(const QString &containerId, QStringList remaining, int total, QStringList done,
                    QStringList failed);
    // Names the transfers would take that `destination` already has (relative to it).
    QStringList takenNames(const QString &destination, const QList<Transfer> &transfers) const;
    // Replace / Keep Both / Skip / Cancel for the names already there.
    void askAboutTakenNames(const QString &destination, const QList<Transfer> &transfers,
                            const QStringList &taken);
    // `existing` is file.download's: refuse, replace or keep_both.
    void startDownload(const QString &destination, const QList<Transfer> &transfers, const QString &existing,
                       bool skipTaken);
    // `overrideReason` non-empty: files the artifact scan would keep back are saved, for that reason.
    void downloadNext(QList<Transfer> remaining, const QString &existing,
                      const std::shared_ptr<DownloadReport> &report, const QString &overrideReason = {});
    // The scan kept files back: shows the findings (ScanFindingsDialog) and, given a reason, downloads them.
    void offerDownloadAnyway(const std::shared_ptr<DownloadReport> &report, const QString &existing);
    void deleteNext(QList<Transfer> remaining, QStringList errors);
    void showPreviewFile(const QString &localPath, const QString &name);
    void showPreviewMessage(const QString &text);
    // Forgets the file previewed (its caption, its copy, an answer on its way) and shows `note` instead.
    void resetPreview(const QString &note);
    QList<Transfer> transfersFor(const QModelIndexList &rows) const;
    // The listed files anywhere below a folder or scope root.
    QModelIndexList filesBelow(const QModelIndex &folder) const;
    QModelIndexList selectedRows() const;
    void setBusy(bool busy);
    // What the last upload, download or deletion came to: kept until the next one or another container.
    void setMessage(const QString &text, bool problem = false);
    // What the last listing says (the artifact scan's findings, what could not be listed), shown under the
    // operation's result rather than instead of it.
    void setListingNotes(const QString &text);
    void showMessages();
    void updateActions();

    DaemonConnection &m_connection;
    QString m_containerId;
    QString m_state;
    WorkspaceFileModel *m_model;
    QTreeView *m_view;
    QLabel *m_message;
    QWidget *m_messageBar = nullptr;
    QString m_result;
    bool m_resultProblem = false;
    QString m_listingNotes;
    QProgressBar *m_progress;
    QStackedWidget *m_previewPages;
    QLabel *m_previewNote;
    QLabel *m_previewCaption = nullptr;
    QPlainTextEdit *m_textPreview;
    QTableWidget *m_tablePreview;
    QLabel *m_imagePreview;
    QImage m_previewImage;
    QString m_previewScope; // the file previewed, while its preview is shown
    QString m_previewPath;
    QPushButton *m_openFolderButton;
    QString m_downloadFolder;
    std::unique_ptr<QTemporaryDir> m_previewDir;
    int m_busy = 0;
    quint64 m_listGeneration = 0;
    quint64 m_previewGeneration = 0; // a preview's answer counts only if no other was asked for since
    bool m_relisting = false;        // rows are being replaced: selection changes are not the user's
    QAction *m_refreshAction;
    QAction *m_uploadAction;
    QAction *m_downloadAction;
    QAction *m_downloadAllAction;
    QAction *m_deleteAction;
};

} // namespace Cordon::Ui
