// SPDX-License-Identifier: MIT
// The file browser against a real cordond: a file dropped on the tree is uploaded into inputs/, a program
// reads it and writes outputs, the outputs appear with their sizes, a download gives the same bytes, a
// planted symlink is refused and the message says so, a name already in the destination asks Replace / Keep
// Both / Skip and each does what it says, Open Folder opens the destination, previews show text and CSV,
// delete removes a file, and a file the artifact scan keeps back is saved only with a reason.
#include "guitest.h"

#include "codeeditor.h"
#include "csvuploaddialog.h"
#include "daemonconnection.h"
#include "filebrowser.h"
#include "mainwindow.h"
#include "outcomebanner.h"
#include "runpanel.h"
#include "scanfindingsdialog.h"
#include "workbenchsettings.h"
#include "workspacefilemodel.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QCryptographicHash>
#include <QDesktopServices>
#include <QDropEvent>
#include <QFileDialog>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>
#include <QUrl>

#include <memory>

using namespace Cordon::Ui;

// Stands in for the file manager: QDesktopServices hands it the URL Open Folder asks for.
class UrlCatcher final : public QObject
{
    Q_OBJECT

public:
    QUrl opened;

public Q_SLOTS:
    void open(const QUrl &url) { opened = url; }
};

class FileBrowserTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        // "block": any finding of the artifact scan keeps a file back, which the last tests need; a secret
        // that a run can write into its outputs.
        QVERIFY(m_daemon.call(QStringLiteral("secret.set"),
                              {{QStringLiteral("name"), QStringLiteral("API_TOKEN")},
                               {QStringLiteral("value"), QStringLiteral("tok-gui-0123456789")}}));
        const auto created = m_daemon.createContainer(
            QStringLiteral("files-test"),
            {{QStringLiteral("artifact_scan"), QStringLiteral("block")},
             {QStringLiteral("secrets"),
              QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("API_TOKEN")},
                                     {QStringLiteral("env"), QStringLiteral("TOKEN")}}}}});
        QVERIFY2(created, created ? "" : created.error().describe().c_str());
        m_containerId = *created;

        m_window = std::make_unique<MainWindow>(MainWindow::Options{false});
        m_browser = m_window->fileBrowser();
        QVERIFY(m_browser);
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_browser->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->connection().isConnected(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_window->currentContainerId(), m_containerId, 10000);
        m_window->findChild<RunPanel *>()->outputTabs()->setCurrentWidget(m_browser);
        QCOMPARE(m_browser->model()->rowCount(), 3);
    }

    void dropUploadsIntoInputs()
    {
        QVERIFY(m_host.isValid());
        const QString path = m_host.filePath(QStringLiteral("data.txt"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("alpha\nbeta\n");
        file.close();

        // What a drop on the tree does, with the MIME data a file manager sends.
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->uploadDropped(&mime);
        QVERIFY(m_browser->isBusy());
        QVERIFY(finished.wait(30000));
        QVERIFY2(m_browser->message().contains(QStringLiteral("Uploaded 1 file")),
                 qPrintable(m_browser->message()));
        QTRY_VERIFY(
            m_browser->model()->indexOf(QStringLiteral("inputs"), QStringLiteral("data.txt")).isValid());
        const QModelIndex row =
            m_browser->model()->indexOf(QStringLiteral("inputs"), QStringLiteral("data.txt"));
        QCOMPARE(row.data(WorkspaceFileModel::SizeRole).toLongLong(), 11);
        QCOMPARE(row.data(WorkspaceFileModel::Sha256Role).toString(),
                 QString::fromLatin1(
                     QCryptographicHash::hash("alpha\nbeta\n", QCryptographicHash::Sha256).toHex()));
        QCOMPARE(row.siblingAtColumn(WorkspaceFileModel::SizeColumn).data().toString(),
                 QStringLiteral("11 B"));
    }

    // Without the mouse: Ctrl+4 to the tree, Shift+Tab to Upload (or Ctrl+U), the file dialog answered by
    // typing the path.
    void uploadWithTheKeyboardAlone()
    {
        const QString path = m_host.filePath(QStringLiteral("typed.txt"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("typed\n");
        file.close();
        QVERIFY(CordonGuiTest::activate(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key_4, Qt::ControlModifier);
        QTRY_VERIFY(m_browser->view()->hasFocus());
        QAction *uploadAction = m_browser->findChild<QAction *>(QStringLiteral("uploadFilesAction"));
        QVERIFY2(uploadAction->toolTip().contains(QStringLiteral("Ctrl+U")),
                 qPrintable(uploadAction->toolTip()));
        QWidget *upload = m_browser->findChild<QToolBar *>()->widgetForAction(uploadAction);
        for (int presses = 0; presses < 8 && QApplication::focusWidget() != upload; ++presses)
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ShiftModifier);
        QCOMPARE(QApplication::focusWidget(), upload);

        // The dialog is modal: it is answered from a timer while Space waits for it.
        const auto answerFileDialog = [](const QString &typed) {
            auto answered = std::make_shared<bool>(false);
            auto *poll = new QTimer;
            poll->setInterval(50);
            QObject::connect(poll, &QTimer::timeout, poll, [poll, typed, answered] {
                auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
                if (!dialog || !dialog->isVisible() || !QApplication::focusWidget())
                    return;
                poll->stop();
                poll->deleteLater();
                *answered = true;
                if (typed.isEmpty()) {
                    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
                    return;
                }
                QTest::keyClicks(QApplication::focusWidget(), typed);
                QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
            });
            poll->start();
            return answered;
        };
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        auto answered = answerFileDialog(path);
        QTest::keyClick(upload, Qt::Key_Space);
        QVERIFY(*answered); // the dialog came, and was answered
        QVERIFY(finished.count() > 0 || finished.wait(30000));
        QVERIFY2(m_browser->message().contains(QStringLiteral("Uploaded 1 file into inputs/: typed.txt")),
                 qPrintable(m_browser->message()));

        // Ctrl+U from the tree opens the same dialog; Escape leaves it. (A closed dialog does not hand
        // activation back on the offscreen platform.)
        QVERIFY(CordonGuiTest::activate(m_window.get()));
        m_browser->view()->setFocus();
        QTRY_VERIFY(m_browser->view()->hasFocus());
        answered = answerFileDialog(QString());
        QTest::keyClick(m_browser->view(), Qt::Key_U, Qt::ControlModifier);
        QVERIFY(*answered);
    }

    void runWritesOutputsThatAppear()
    {
        runProgram(QStringLiteral("import csv\n"
                                  "text = open('/mnt/data/inputs/data.txt').read()\n"
                                  "open('/mnt/data/outputs/result.txt', 'w').write(text.upper())\n"
                                  "with open('/mnt/data/outputs/table.csv', 'w', newline='') as f:\n"
                                  "    w = csv.writer(f)\n"
                                  "    w.writerow(['word', 'length'])\n"
                                  "    for word in text.split():\n"
                                  "        w.writerow([word, len(word)])\n"
                                  "import struct, zlib\n"
                                  "def chunk(kind, data):\n"
                                  "    return (struct.pack('>I', len(data)) + kind + data\n"
                                  "            + struct.pack('>I', zlib.crc32(kind + data)))\n"
                                  "raw = b''.join(b'\\0' + b'\\xff\\x00\\x00' * 3 for _ in range(2))\n"
                                  "open('/mnt/data/outputs/red.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n'\n"
                                  "    + chunk(b'IHDR', struct.pack('>IIBBBBB', 3, 2, 8, 2, 0, 0, 0))\n"
                                  "    + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))\n"
                                  "open('/mnt/data/outputs/in\\u200bvisible.txt', 'w').write('x')\n"));
        // Refreshed after the run, without asking.
        QTRY_VERIFY_WITH_TIMEOUT(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt")).isValid(),
            10000);
        const QModelIndex row =
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt"));
        QCOMPARE(row.data(WorkspaceFileModel::SizeRole).toLongLong(), 11);
        QCOMPARE(row.siblingAtColumn(WorkspaceFileModel::SizeColumn).data().toString(),
                 QStringLiteral("11 B"));
        QVERIFY(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("table.csv")).isValid());
        // A name with an invisible character is shown with the character spelled out, as plain text.
        const QModelIndex hidden =
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("in\u200bvisible.txt"));
        QVERIFY(hidden.isValid());
        QCOMPARE(hidden.data().toString(), QStringLiteral("in\\u{200b}visible.txt"));
    }

    void realDropEventUploads()
    {
        // The same upload through the view: a drop event on the tree's viewport, as a file manager sends it.
        const QString path = m_host.filePath(QStringLiteral("dropped.txt"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("dropped");
        file.close();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QWidget *viewport = m_browser->view()->viewport();
        const QPointF at(viewport->width() / 2.0, viewport->height() / 2.0);
        QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &drop);
        QVERIFY(drop.isAccepted());
        QCOMPARE(drop.dropAction(), Qt::CopyAction);
        QVERIFY(finished.wait(30000));
        QTRY_VERIFY(
            m_browser->model()->indexOf(QStringLiteral("inputs"), QStringLiteral("dropped.txt")).isValid());
    }

    void downloadGivesTheSameBytes()
    {
        QTemporaryDir destination;
        const QModelIndex row =
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt"));
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->downloadTo(destination.path(), {row});
        QVERIFY(finished.wait(30000));
        QVERIFY2(m_browser->message().startsWith(QStringLiteral("Downloaded 1 file to ")),
                 qPrintable(m_browser->message()));
        QFile copy(destination.filePath(QStringLiteral("result.txt")));
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QCOMPARE(copy.readAll(), QByteArrayLiteral("ALPHA\nBETA\n"));
    }

    void previewsTextAndCsv()
    {
        m_browser->preview(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt")));
        QTRY_COMPARE_WITH_TIMEOUT(m_browser->previewKind(), QStringLiteral("text"), 10000);
        QCOMPARE(m_browser->textPreview()->toPlainText(), QStringLiteral("ALPHA\nBETA\n"));

        m_browser->preview(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("table.csv")));
        QTRY_COMPARE_WITH_TIMEOUT(m_browser->previewKind(), QStringLiteral("table"), 10000);
        QTableWidget *table = m_browser->tablePreview();
        QCOMPARE(table->columnCount(), 2);
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->horizontalHeaderItem(0)->text(), QStringLiteral("word"));
        QCOMPARE(table->item(1, 0)->text(), QStringLiteral("beta"));
        QCOMPARE(table->item(1, 1)->text(), QStringLiteral("4"));

        m_browser->preview(m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("red.png")));
        QTRY_COMPARE_WITH_TIMEOUT(m_browser->previewKind(), QStringLiteral("image"), 10000);
        QCOMPARE(m_browser->imagePreview().size(), QSize(3, 2));
        QCOMPARE(m_browser->imagePreview().pixelColor(1, 1), QColor(Qt::red));

        // A listing after a run keeps the file the user was on, and does not fetch it again by itself.
        const QModelIndex csv =
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("table.csv"));
        m_browser->view()->selectionModel()->setCurrentIndex(csv, QItemSelectionModel::ClearAndSelect |
                                                                      QItemSelectionModel::Rows);
        QTRY_COMPARE_WITH_TIMEOUT(m_browser->previewKind(), QStringLiteral("table"), 10000);
        const qint64 downloadsBefore = downloadEvents();
        QVERIFY(downloadsBefore > 0);
        QSignalSpy listed(m_browser->model(), &QAbstractItemModel::rowsInserted);
        m_browser->refresh();
        QVERIFY(listed.wait(10000));
        QTRY_COMPARE(
            m_browser->view()->selectionModel()->currentIndex().data(WorkspaceFileModel::PathRole).toString(),
            QStringLiteral("table.csv"));
        QCOMPARE(m_browser->previewKind(), QStringLiteral("table"));
        QTest::qWait(200);
        QCOMPARE(downloadEvents(), downloadsBefore);
    }

    void plantedSymlinkIsRefused()
    {
        runProgram(QStringLiteral("import os\nos.symlink('/etc/passwd', '/mnt/data/outputs/evil')\n"));
        QTemporaryDir destination;
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->downloadTo(destination.path(), {m_browser->model()->rootIndex(QStringLiteral("outputs"))});
        QVERIFY(finished.wait(30000));
        const QString message = m_browser->message();
        QVERIFY2(message.contains(QStringLiteral("Downloaded 4 files to ")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("Refused 1 file, not copied:")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral(
                     "• evil: a symbolic link, which could point anywhere on this computer (files.symlink)")),
                 qPrintable(message));
        QVERIFY(QFileInfo::exists(destination.filePath(QStringLiteral("result.txt"))));
        QVERIFY(!QFileInfo(destination.filePath(QStringLiteral("evil"))).exists());
        QVERIFY(!QFileInfo(destination.filePath(QStringLiteral("evil"))).isSymLink());

        // The next Download dialog opens where this one went.
        QCOMPARE(WorkbenchSettings::downloadFolder(), destination.path());
    }

    void takenNameAsksReplaceKeepBothOrSkip()
    {
        QTemporaryDir destination;
        const QString local = destination.filePath(QStringLiteral("result.txt"));
        QFile mine(local);
        QVERIFY(mine.open(QIODevice::WriteOnly));
        mine.write("mine\n");
        mine.close();
        const QModelIndex result =
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt"));
        QVERIFY(result.isValid());
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);

        // Cancel: nothing asked of the daemon, nothing touched.
        m_browser->downloadTo(destination.path(), {result});
        answerConflict(nullptr);
        QTest::qWait(300);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(readFile(local), QByteArray("mine\n"));

        // Skip: the first line says nothing came and why, which is no problem; no Open Folder.
        m_browser->downloadTo(destination.path(), {result});
        answerConflict("skipButton");
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        // The listing's notes (the symlink planted before) come under the download's result.
        QCOMPARE(m_browser->message().section(QLatin1Char('\n'), 0, 0),
                 QStringLiteral("Nothing was downloaded to %1: 1 file skipped (already there).")
                     .arg(destination.path()));
        QVERIFY(m_browser->openFolderButton()->isHidden());
        QCOMPARE(readFile(local), QByteArray("mine\n"));

        // Keep Both: the download sits beside the file, under a name the message gives.
        m_browser->downloadTo(destination.path(), {result});
        answerConflict("keepBothButton");
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 30000);
        QVERIFY2(m_browser->message().contains(QStringLiteral("• result.txt saved as result (2).txt")),
                 qPrintable(m_browser->message()));
        QCOMPARE(readFile(local), QByteArray("mine\n"));
        QCOMPARE(readFile(destination.filePath(QStringLiteral("result (2).txt"))),
                 QByteArray("ALPHA\nBETA\n"));

        // Replace: the file there becomes the download.
        m_browser->downloadTo(destination.path(), {result});
        answerConflict("replaceButton");
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 30000);
        QVERIFY2(m_browser->message().startsWith(QStringLiteral("Downloaded 1 file to ")),
                 qPrintable(m_browser->message()));
        QCOMPARE(readFile(local), QByteArray("ALPHA\nBETA\n"));

        // Open Folder shows that folder in the file manager (here a handler standing in for it).
        QVERIFY2(!m_browser->openFolderButton()->isHidden(), qPrintable(m_browser->message()));
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &catcher, "open");
        m_browser->openFolderButton()->click();
        QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
        QCOMPARE(catcher.opened, QUrl::fromLocalFile(destination.path()));
        // Another message takes the button away: it belongs to the download it reports.
        m_browser->refresh();
        m_browser->uploadFiles({destination.filePath(QStringLiteral("result (2).txt"))});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 4, 30000);
        QVERIFY(m_browser->openFolderButton()->isHidden());
    }

    void deleteRemovesTheFile()
    {
        const QModelIndex row =
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt"));
        QVERIFY(row.isValid());
        m_browser->deleteRows({row});
        QTRY_VERIFY_WITH_TIMEOUT(
            !m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("result.txt")).isValid(),
            10000);
        QVERIFY(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("table.csv")).isValid());
    }

    // The artifact scan keeps a file with a cloud key back; the findings dialog shows where and what, and
    // Download Anyway needs a reason, which the daemon records with the file saved.
    void theScanKeepsAFileBackUntilAReasonIsGiven()
    {
        runProgram(QStringLiteral("open('/mnt/data/outputs/creds.txt', 'w').write('x\\naws_access_key_id = "
                                  "AKIAQ3EXAMPLE7JX2KPL\\n')\n"));
        QTRY_VERIFY_WITH_TIMEOUT(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("creds.txt")).isValid(),
            10000);
        QTemporaryDir destination;
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->downloadTo(destination.path(), {m_browser->model()->indexOf(QStringLiteral("outputs"),
                                                                               QStringLiteral("creds.txt"))});
        QVERIFY(finished.wait(30000));
        QVERIFY2(m_browser->message().contains(QStringLiteral("kept back by the artifact scan")),
                 qPrintable(m_browser->message()));
        QVERIFY(!QFileInfo::exists(destination.filePath(QStringLiteral("creds.txt"))));

        // Nor is it previewed: a preview is a download too.
        m_browser->preview(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("creds.txt")));
        QTRY_VERIFY_WITH_TIMEOUT(
            m_browser->previewMessage().contains(QStringLiteral("kept back by the artifact scan")), 10000);
        ScanFindingsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_browser->findChild<ScanFindingsDialog *>()) != nullptr);
        QCOMPARE(dialog->findings()->topLevelItemCount(), 1);
        const QTreeWidgetItem *finding = dialog->findings()->topLevelItem(0);
        QCOMPARE(finding->text(0), QStringLiteral("creds.txt"));
        QCOMPARE(finding->text(1), QStringLiteral("line 2"));
        QCOMPARE(finding->text(2), QStringLiteral("aws.access_key_id"));
        QCOMPARE(finding->text(4), QStringLiteral("AKIA**************PL"));
        QVERIFY(!dialog->downloadAnywayButton()->isEnabled());
        dialog->reasonField()->setText(QStringLiteral("   "));
        QVERIFY(!dialog->downloadAnywayButton()->isEnabled());
        dialog->reasonField()->setText(QStringLiteral("the example key of the AWS docs"));
        QVERIFY(dialog->downloadAnywayButton()->isEnabled());
        dialog->downloadAnywayButton()->click();
        QVERIFY(finished.wait(30000));
        QVERIFY2(m_browser->message().contains(QStringLiteral("was saved on your reason")),
                 qPrintable(m_browser->message()));
        QVERIFY(readFile(destination.filePath(QStringLiteral("creds.txt"))).contains("AKIAQ3EXAMPLE7JX2KPL"));
        const auto overrides = m_daemon.call(QStringLiteral("history.events"),
                                             {{QStringLiteral("container"), m_containerId},
                                              {QStringLiteral("kind"), QStringLiteral("artifact.override")}});
        QVERIFY(overrides);
        const QJsonArray events = overrides->value(QStringLiteral("events")).toArray();
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first()
                     .toObject()
                     .value(QStringLiteral("detail"))
                     .toObject()
                     .value(QStringLiteral("reason")),
                 QJsonValue(QStringLiteral("the example key of the AWS docs")));

        // From a whole-scope download, Download Anyway puts a file kept back in a subfolder where the
        // download would have put it.
        runProgram(
            QStringLiteral("import os\nos.makedirs('/mnt/data/outputs/sub', exist_ok=True)\n"
                           "open('/mnt/data/outputs/sub/deep.txt', 'w').write('token: ghp_R2d2C3poExample"
                           "TokenValue0123456789ab\\n')\n"));
        QTRY_VERIFY_WITH_TIMEOUT(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("sub/deep.txt")).isValid(),
            10000);
        QTemporaryDir whole;
        m_browser->downloadTo(whole.path(), {m_browser->model()->rootIndex(QStringLiteral("outputs"))});
        QVERIFY(finished.wait(30000));
        ScanFindingsDialog *again = nullptr;
        QTRY_VERIFY((again = m_browser->findChild<ScanFindingsDialog *>()) != nullptr && again->isVisible());
        // Before Download Anyway the message tells of the other files, copied or refused; after it, still.
        QVERIFY2(m_browser->message().startsWith(
                     QStringLiteral("Downloaded 3 files to %1: 3 files refused.").arg(whole.path())),
                 qPrintable(m_browser->message()));
        again->reasonField()->setText(QStringLiteral("test tokens"));
        again->downloadAnywayButton()->click();
        QVERIFY(finished.wait(30000));
        QVERIFY2(QFileInfo::exists(whole.filePath(QStringLiteral("sub/deep.txt"))),
                 qPrintable(m_browser->message()));
        QVERIFY(QFileInfo::exists(whole.filePath(QStringLiteral("creds.txt"))));
        QVERIFY2(m_browser->message().startsWith(
                     QStringLiteral("Downloaded 5 files to %1: 1 file refused.").arg(whole.path())),
                 qPrintable(m_browser->message()));
        QVERIFY2(m_browser->message().contains(QStringLiteral("• evil: a symbolic link")),
                 qPrintable(m_browser->message()));
        QVERIFY2(m_browser->message().contains(QStringLiteral("sub/deep.txt was saved on your reason")),
                 qPrintable(m_browser->message()));
    }

    // A secret's value written by a run is kept back, and the findings name the secret, never its value.
    void aSecretWrittenByARunIsKeptBack()
    {
        runProgram(QStringLiteral("import os\nopen('/mnt/data/outputs/token.txt', 'w').write('token: ' + "
                                  "os.environ['TOKEN'] + '\\n')\n"));
        QTRY_VERIFY_WITH_TIMEOUT(
            m_browser->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("token.txt")).isValid(),
            10000);
        // Before any download, the Files view says what a download would do, and why, without the value.
        const auto scanCell = [this] {
            return m_browser->model()
                ->indexOf(QStringLiteral("outputs"), QStringLiteral("token.txt"))
                .siblingAtColumn(WorkspaceFileModel::ScanColumn);
        };
        QTRY_COMPARE_WITH_TIMEOUT(scanCell().data().toString(), QStringLiteral("Kept back: 1 finding"),
                                  10000);
        QCOMPARE(scanCell().data(WorkspaceFileModel::ScanActionRole).toString(), QStringLiteral("blocked"));
        const QString tip = scanCell().data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("line 1: secret.value (high)  [secret:API_TOKEN]")),
                 qPrintable(tip));
        QVERIFY(!tip.contains(QStringLiteral("tok-gui-0123456789")));
        QVERIFY2(m_browser->message().contains(QStringLiteral("outputs/token.txt")) &&
                     m_browser->message().contains(QStringLiteral("a download would keep")),
                 qPrintable(m_browser->message()));
        QVERIFY(!m_browser->message().contains(QStringLiteral("tok-gui-0123456789")));
        // A file without findings has no mark.
        QVERIFY(m_browser->model()
                    ->indexOf(QStringLiteral("outputs"), QStringLiteral("table.csv"))
                    .siblingAtColumn(WorkspaceFileModel::ScanColumn)
                    .data()
                    .toString()
                    .isEmpty());
        QTemporaryDir destination;
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->downloadTo(destination.path(), {m_browser->model()->indexOf(QStringLiteral("outputs"),
                                                                               QStringLiteral("token.txt"))});
        QVERIFY(finished.wait(30000));
        QVERIFY2(m_browser->message().contains(QStringLiteral("kept back by the artifact scan")),
                 qPrintable(m_browser->message()));
        QVERIFY(!QFileInfo::exists(destination.filePath(QStringLiteral("token.txt"))));
        ScanFindingsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_browser->findChild<ScanFindingsDialog *>()) != nullptr &&
                    dialog->isVisible());
        QCOMPARE(dialog->findings()->topLevelItemCount(), 1);
        QCOMPARE(dialog->findings()->topLevelItem(0)->text(2), QStringLiteral("secret.value"));
        QCOMPARE(dialog->findings()->topLevelItem(0)->text(4), QStringLiteral("[secret:API_TOKEN]"));
        QVERIFY(!m_browser->message().contains(QStringLiteral("tok-gui-0123456789")));
        dialog->reject();
        QTRY_VERIFY(!m_browser->findChild<ScanFindingsDialog *>());
    }

    // A file named after a secret's value is reported masked ("[secret:API_TOKEN].txt"), and Download Anyway
    // asks for it by that name: the daemon finds the file the mask stands for.
    void aFileNamedAfterASecretComesOutWithAReason()
    {
        runProgram(QStringLiteral("import os\nopen('/mnt/data/outputs/' + os.environ['TOKEN'] + '.txt', 'w')"
                                  ".write('token: ' + os.environ['TOKEN'] + '\\n')\n"));
        const QString realName = QStringLiteral("tok-gui-0123456789.txt");
        QTRY_COMPARE_WITH_TIMEOUT(m_browser->model()
                                      ->indexOf(QStringLiteral("outputs"), realName)
                                      .siblingAtColumn(WorkspaceFileModel::ScanColumn)
                                      .data(WorkspaceFileModel::ScanActionRole)
                                      .toString(),
                                  QStringLiteral("blocked"), 10000);
        // The message before the download names it masked too.
        QVERIFY2(m_browser->message().contains(QStringLiteral("outputs/[secret:API_TOKEN].txt")) &&
                     !m_browser->message().contains(QStringLiteral("tok-gui-0123456789")),
                 qPrintable(m_browser->message()));
        QTemporaryDir destination;
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->downloadTo(destination.path(), {m_browser->model()->rootIndex(QStringLiteral("outputs"))});
        QVERIFY(finished.wait(30000));
        QVERIFY(!QFileInfo::exists(destination.filePath(realName)));
        ScanFindingsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_browser->findChild<ScanFindingsDialog *>()) != nullptr &&
                    dialog->isVisible());
        bool masked = false;
        for (int i = 0; i < dialog->findings()->topLevelItemCount(); ++i) {
            masked = masked ||
                     dialog->findings()->topLevelItem(i)->text(0) == QStringLiteral("[secret:API_TOKEN].txt");
            QVERIFY(!dialog->findings()->topLevelItem(i)->text(0).contains(QStringLiteral("tok-gui")));
        }
        QVERIFY(masked);
        dialog->reasonField()->setText(QStringLiteral("a test token, named so on purpose"));
        dialog->downloadAnywayButton()->click();
        QVERIFY(finished.wait(30000));
        // Saved under the name it was asked for, masked: the value is in the file, not in its name.
        const QString maskedName = QStringLiteral("[secret:API_TOKEN].txt");
        QVERIFY2(QFileInfo::exists(destination.filePath(maskedName)), qPrintable(m_browser->message()));
        QVERIFY(readFile(destination.filePath(maskedName)).contains("tok-gui-0123456789"));
        QVERIFY(!QFileInfo::exists(destination.filePath(realName)));
        QVERIFY2(!m_browser->message().contains(QStringLiteral("tok-gui-0123456789")),
                 qPrintable(m_browser->message()));
    }

    // Uploading a CSV file asks which columns reach the container as pseudonyms, and shows them before.
    void aCsvUploadAsksWhichColumnsToPseudonymise()
    {
        const QString path = m_host.filePath(QStringLiteral("people.csv"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("name,email,visits\nAda Lovelace,ada@example.org,3\nAlan Turing,\"alan@example.org\",5\n");
        file.close();
        QSignalSpy finished(m_browser, &FileBrowser::operationFinished);
        m_browser->uploadFiles({path});
        CsvUploadDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_browser->findChild<CsvUploadDialog *>()) != nullptr && dialog->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isLoaded(), 10000);
        QVERIFY(dialog->headerBox()->isChecked());
        QCOMPARE(dialog->columnList()->count(), 3);
        QCOMPARE(dialog->columnList()->item(1)->text(), QStringLiteral("email"));
        QCOMPARE(dialog->previewTable()->rowCount(), 2);
        QCOMPARE(dialog->previewTable()->item(0, 1)->text(), QStringLiteral("ada@example.org"));
        QCOMPARE(dialog->uploadButton()->text(), QStringLiteral("Upload As Is"));
        QVERIFY2(dialog->statusLabel()->text().contains(QStringLiteral("comma-separated")),
                 qPrintable(dialog->statusLabel()->text()));
        auto *guessable = dialog->findChild<QLabel *>(QStringLiteral("csvGuessable"));
        QVERIFY(guessable && guessable->isHidden()); // nothing checked, nothing to warn of

        // Checked: the column shows what the container will see.
        dialog->columnList()->item(1)->setCheckState(Qt::Checked);
        const QString pseudonym = dialog->previewTable()->item(0, 1)->text();
        QVERIFY2(pseudonym.startsWith(QStringLiteral("psn_")) && pseudonym.size() == 20,
                 qPrintable(pseudonym));
        QCOMPARE(dialog->previewTable()->item(0, 0)->text(), QStringLiteral("Ada Lovelace"));
        QCOMPARE(dialog->uploadButton()->text(), QStringLiteral("Upload with 1 Column Pseudonymised"));
        // Two addresses are easily guessed back: the dialog says so before the upload.
        QVERIFY(!guessable->isHidden());
        QVERIFY2(guessable->text().contains(QStringLiteral("Few distinct values in email (2 values)")),
                 qPrintable(guessable->text()));
        dialog->uploadButton()->click();
        QVERIFY(finished.wait(30000));
        QVERIFY2(m_browser->message().contains(QStringLiteral("people.csv (pseudonymised: email)")),
                 qPrintable(m_browser->message()));
        // The listing after the upload brings the scan's note on the files kept back in outputs/: under the
        // upload's result, not instead of it.
        QTRY_VERIFY2_WITH_TIMEOUT(m_browser->message().contains(QStringLiteral("a download would keep")),
                                  qPrintable(m_browser->message()), 10000);
        QVERIFY2(m_browser->message().contains(QStringLiteral("people.csv (pseudonymised: email)")),
                 qPrintable(m_browser->message()));
        runProgram(QStringLiteral("import sys\ntext = open('/mnt/data/inputs/people.csv').read()\n"
                                  "sys.exit(0 if '%1' in text and 'ada@' not in text and 'alan@' not in text "
                                  "and text.startswith('name,email,visits\\nAda Lovelace,') else 3)\n")
                       .arg(pseudonym));
        const auto uploads = m_daemon.call(QStringLiteral("history.events"),
                                           {{QStringLiteral("container"), m_containerId},
                                            {QStringLiteral("kind"), QStringLiteral("file.uploaded")}});
        QVERIFY(uploads);
        QJsonObject done;
        for (const QJsonValue &event : uploads->value(QStringLiteral("events")).toArray()) {
            const QJsonObject detail = event.toObject().value(QStringLiteral("detail")).toObject();
            if (detail.value(QStringLiteral("path")).toString() == QLatin1String("people.csv"))
                done = detail.value(QStringLiteral("pseudonymized")).toObject();
        }
        QCOMPARE(done.value(QStringLiteral("columns")).toArray(), QJsonArray{QStringLiteral("email")});
        QCOMPARE(done.value(QStringLiteral("values")).toInteger(), 2);

        // Cancelled: nothing is uploaded, and the message says so.
        const QString second = m_host.filePath(QStringLiteral("second.tsv"));
        QFile tsv(second);
        QVERIFY(tsv.open(QIODevice::WriteOnly));
        tsv.write("a\tb\n1\t2\n");
        tsv.close();
        m_browser->uploadFiles({second});
        QTRY_VERIFY((dialog = m_browser->findChild<CsvUploadDialog *>()) != nullptr && dialog->isVisible());
        const qsizetype before = finished.count();
        dialog->reject(); // the upload ends here and then, without a round trip to the daemon
        QTRY_COMPARE(finished.count(), before + 1);
        QVERIFY2(m_browser->message().contains(QStringLiteral("second.tsv: not uploaded (cancelled)")),
                 qPrintable(m_browser->message()));
        QVERIFY(
            !m_browser->model()->indexOf(QStringLiteral("inputs"), QStringLiteral("second.tsv")).isValid());
    }

    void cleanupTestCase()
    {
        m_tester.reset();
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

private:
    // Clicks a button of the Replace / Keep Both / Skip question once it shows; nullptr is Cancel.
    void answerConflict(const char *button)
    {
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = m_browser->findChild<QMessageBox *>(QStringLiteral("downloadConflictDialog"))));
        QTRY_VERIFY(box->isVisible());
        QVERIFY2(box->text().contains(QStringLiteral("result.txt already exists in ")),
                 qPrintable(box->text()));
        if (button) {
            auto *pushButton = box->findChild<QPushButton *>(QString::fromLatin1(button));
            QVERIFY(pushButton);
            pushButton->click();
        } else {
            box->reject();
        }
        QTRY_VERIFY(!m_browser->findChild<QMessageBox *>(QStringLiteral("downloadConflictDialog")));
    }

    static QByteArray readFile(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
    }

    // How many downloads (previews included) the daemon recorded for the container.
    qint64 downloadEvents()
    {
        const auto events = m_daemon.call(QStringLiteral("history.events"),
                                          {{QStringLiteral("container"), m_containerId},
                                           {QStringLiteral("kind"), QStringLiteral("file.downloaded")},
                                           {QStringLiteral("limit"), 1}});
        return events ? events->value(QStringLiteral("total")).toInteger() : -1;
    }

    void runProgram(const QString &code)
    {
        auto *panel = m_window->findChild<RunPanel *>();
        panel->setCode(QStringLiteral("python"), code);
        auto *banner = m_window->findChild<RunPanel *>()->banner();
        panel->runAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(panel->isRunning(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 30000);
        QVERIFY2(banner->text().startsWith(QStringLiteral("Exit code 0")), qPrintable(banner->text()));
    }

    CordonTest::DaemonFixture m_daemon;
    QTemporaryDir m_host;
    QString m_containerId;
    std::unique_ptr<MainWindow> m_window;
    FileBrowser *m_browser = nullptr;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

CORDON_GUI_SANDBOX_TEST_MAIN(FileBrowserTest)

#include "tst_filebrowser.moc"
