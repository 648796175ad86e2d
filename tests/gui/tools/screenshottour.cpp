// SPDX-License-Identifier: MIT
// cordon-screenshot-tour: drives the real workbench window through its main
// views and saves each as a PNG, for docs/screenshots/ (run by
// tests/gui/make-screenshots.sh under Xvfb with a private daemon). Not a test:
// it fails loudly when a step does not happen, but checks nothing else.
#include "codeeditor.h"
#include "containerlistmodel.h"
#include "createcontainerdialog.h"
#include "daemonconnection.h"
#include "filebrowser.h"
#include "historymodel.h"
#include "historyview.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "outcomebanner.h"
#include "runpanel.h"
#include "welcomepage.h"
#include "workspacefilemodel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QDockWidget>
#include <QGroupBox>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QTreeView>

#include <cstdio>
#include <functional>

using namespace Cordon::Ui;

namespace {

// Runs the event loop until `condition` holds; false after `timeoutMs`.
bool waitFor(const std::function<bool()> &condition, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
    return true;
}

void settle(int ms)
{
    waitFor([] { return false; }, ms);
}

bool save(const QPixmap &pixmap, const QString &directory, const QString &name)
{
    const QString path = QDir(directory).filePath(name);
    if (!pixmap.save(path)) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        return false;
    }
    std::printf("saved %s\n", qPrintable(path));
    return true;
}

int fail(const char *step)
{
    std::fprintf(stderr, "screenshot tour: %s did not happen\n", step);
    return 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("cordon"));
    QApplication::setApplicationName(QStringLiteral("cordon-workbench"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral(".");
    // `--dark` (second argument): the same tour in a dark palette, to check that
    // icons, the editor and the chart follow it.
    const bool dark = argc > 2 && qstrcmp(argv[2], "--dark") == 0;
    if (dark) {
        QPalette palette;
        palette.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x30));
        palette.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
        palette.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
        palette.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
        palette.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
        palette.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
        palette.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
        palette.setColor(QPalette::Highlight, QColor(0x3b, 0x7d, 0xd8));
        palette.setColor(QPalette::HighlightedText, Qt::white);
        palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
        palette.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
        palette.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
        palette.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
        QApplication::setPalette(palette);
    }
    const QString prefix = dark ? QStringLiteral("dark-") : QString();

    MainWindow window({});
    window.resize(1280, 800);
    window.move(0, 0);
    window.show();
    window.start();
    if (!waitFor([&] { return window.connection().isConnected(); }, 20000))
        return fail("connecting to cordond");
    settle(800);
    if (!save(window.grab(), out, prefix + QStringLiteral("empty-state.png")))
        return 1;

    auto *welcome = window.findChild<WelcomePage *>();
    welcome->demoButton()->click();
    if (!waitFor(
            [&] { return window.containerModel().rowCount() == 1 && !window.currentContainerId().isEmpty(); },
            30000))
        return fail("creating the demo container");

    window.showCreateDialog();
    CreateContainerDialog *dialog = nullptr;
    if (!waitFor(
            [&] { return (dialog = window.findChild<CreateContainerDialog *>()) && dialog->isVisible(); },
            5000))
        return fail("opening the create dialog");
    dialog->setName(QStringLiteral("analysis"));
    settle(500);
    {
        // The dialog over a dimmed window, as the user sees it.
        QPixmap shot = window.grab();
        QPainter painter(&shot);
        painter.fillRect(shot.rect(), QColor(0, 0, 0, 70));
        const QPixmap dialogShot = dialog->grab();
        const QPoint at(
            (shot.width() / shot.devicePixelRatio() - dialogShot.width() / dialogShot.devicePixelRatio()) / 2,
            (shot.height() / shot.devicePixelRatio() - dialogShot.height() / dialogShot.devicePixelRatio()) /
                3);
        painter.drawPixmap(at, dialogShot);
        painter.setPen(QColor(0, 0, 0, 110));
        painter.drawRect(QRect(at, dialogShot.deviceIndependentSize().toSize()).adjusted(-1, -1, 0, 0));
        painter.end();
        if (!save(shot, out, prefix + QStringLiteral("create-dialog.png")))
            return 1;
    }
    dialog->reject();
    settle(300);

    // Some quiet seconds first, so that the chart shows the container idle before
    // the program climbs.
    settle(12000);
    auto *panel = window.findChild<RunPanel *>();
    panel->runAction()->trigger();
    auto *banner = window.findChild<OutcomeBanner *>();
    if (!waitFor([&] { return banner->text().startsWith(QStringLiteral("Exit code")); }, 60000))
        return fail("running the demo program");
    settle(1500);
    if (!save(window.grab(), out, prefix + QStringLiteral("main-window.png")))
        return 1;

    // The memory view on its own, wider than in the window, after a program ran
    // into the 1 GiB limit: the climb, the limit line and the OOM kill mark.
    panel->editor()->setText(QStringLiteral("import time\nblocks = []\nwhile True:\n"
                                            "    blocks.append(bytearray(64 << 20))\n    time.sleep(0.1)\n"));
    panel->runAction()->trigger();
    if (!waitFor([&] { return banner->text().startsWith(QStringLiteral("Out of memory")); }, 60000))
        return fail("running into the memory limit");
    settle(1500);
    auto *chart = window.findChild<MemoryChart *>();
    auto *memoryBox = qobject_cast<QGroupBox *>(chart->parentWidget());
    if (!memoryBox)
        return fail("finding the memory view");
    if (auto *scale = chart->findChild<QCheckBox *>())
        scale->setChecked(true);
    auto *splitter = window.findChild<QSplitter *>(QStringLiteral("mainSplitter"));
    splitter->setSizes({260, 420, 600});
    settle(800);
    if (!save(memoryBox->grab(), out, prefix + QStringLiteral("memory-chart.png")))
        return 1;
    if (dark)
        return 0;

    // The file browser: a CSV uploaded from "this computer", a program that reads
    // it and writes a summary, a report, a small PNG chart and a symlink to
    // /etc/passwd; everything in outputs/ downloaded (the symlink is refused and
    // the message says so), and the summary previewed as a table.
    splitter->setSizes({260, 760, 360});
    QTemporaryDir host;
    const QString upload = QDir(host.path()).filePath(QStringLiteral("measurements.csv"));
    {
        QFile file(upload);
        if (!file.open(QIODevice::WriteOnly))
            return fail("writing the file to upload");
        file.write("site,day,temperature\nnorth,mon,11.5\nnorth,tue,12.25\nsouth,"
                   "mon,17\nsouth,tue,18.5\n"
                   "east,mon,14\neast,tue,13.5\n");
    }
    auto *files = window.findChild<FileBrowser *>();
    bool uploaded = false;
    QObject::connect(files, &FileBrowser::operationFinished, files, [&] { uploaded = true; });
    files->uploadFiles({upload});
    if (!waitFor([&] { return uploaded; }, 30000))
        return fail("uploading a file");
    panel->setCode(QStringLiteral("python"),
                   QStringLiteral("# Reads the uploaded CSV, writes a summary, a report and a chart "
                                  "into outputs/,\n"
                                  "# and plants a symlink to a host file, which the download refuses.\n"
                                  "import csv, os, struct, zlib\n"
                                  "rows = "
                                  "list(csv.DictReader(open('/mnt/data/inputs/measurements.csv')))\n"
                                  "sites = {}\n"
                                  "for row in rows:\n"
                                  "    sites.setdefault(row['site'], "
                                  "[]).append(float(row['temperature']))\n"
                                  "with open('/mnt/data/outputs/summary.csv', 'w', newline='') as f:\n"
                                  "    w = csv.writer(f)\n"
                                  "    w.writerow(['site', 'days', 'mean', 'max'])\n"
                                  "    for site, t in sorted(sites.items()):\n"
                                  "        w.writerow([site, len(t), round(sum(t) / len(t), 2), "
                                  "max(t)])\n"
                                  "open('/mnt/data/outputs/report.txt', 'w').write(f'{len(rows)} rows, "
                                  "{len(sites)} sites\\n')\n"
                                  "def png(w, h, pixel):\n"
                                  "    raw = b''.join(b'\\0' + b''.join(pixel(x, y) for x in range(w)) "
                                  "for y in range(h))\n"
                                  "    chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + "
                                  "struct.pack('>I', zlib.crc32(t + d))\n"
                                  "    return (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', "
                                  "struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))\n"
                                  "            + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', "
                                  "b''))\n"
                                  "open('/mnt/data/outputs/chart.png', 'wb').write(png(96, 64, lambda "
                                  "x, y: bytes(\n"
                                  "    (40, 110, 200) if y > 60 - 4 * sites[sorted(sites)[x // 32]][0] "
                                  "else (245, 245, 245))))\n"
                                  "os.symlink('/etc/passwd', '/mnt/data/outputs/passwd-link')\n"
                                  "print('wrote', sorted(os.listdir('/mnt/data/outputs')))\n"));
    panel->runAction()->trigger();
    if (!waitFor([&] { return banner->text().startsWith(QStringLiteral("Exit code 0")); }, 60000))
        return fail("running the file program");
    panel->outputTabs()->setCurrentWidget(files);
    if (!waitFor(
            [&] {
                return files->model()
                    ->indexOf(QStringLiteral("outputs"), QStringLiteral("summary.csv"))
                    .isValid();
            },
            10000))
        return fail("listing the outputs");
    QTemporaryDir downloads;
    uploaded = false;
    files->downloadTo(downloads.path(), {files->model()->rootIndex(QStringLiteral("outputs"))});
    if (!waitFor([&] { return uploaded; }, 30000))
        return fail("downloading the outputs");
    const QModelIndex summary =
        files->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("summary.csv"));
    files->view()->selectionModel()->setCurrentIndex(summary, QItemSelectionModel::ClearAndSelect |
                                                                  QItemSelectionModel::Rows);
    if (!waitFor([&] { return files->previewKind() == QLatin1String("table"); }, 10000))
        return fail("previewing the CSV");
    if (auto *editorSplitter = window.findChild<QSplitter *>(QStringLiteral("editorSplitter")))
        editorSplitter->setSizes({250, 450});
    settle(800);
    if (!save(window.grab(), out, QStringLiteral("file-browser.png")))
        return 1;

    // The history: every run so far, the file program's detail with its inputs
    // and artifacts and their hashes.
    auto *history = window.findChild<HistoryView *>();
    bool loaded = false;
    QObject::connect(history, &HistoryView::pageLoaded, history, [&] { loaded = true; });
    QObject::connect(history, &HistoryView::detailLoaded, history, [&] { loaded = true; });
    // A taller window, so that the editor, the chart and the dock all have room.
    window.resize(1280, 960);
    panel->outputTabs()->setCurrentIndex(0);
    QDockWidget *dock = window.historyDock();
    dock->show();
    window.resizeDocks({dock}, {360}, Qt::Vertical);
    if (!waitFor([&] { return loaded && history->model()->rowCount() > 0; }, 10000))
        return fail("listing the history");
    loaded = false;
    history->showRun(history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString());
    if (!waitFor([&] { return loaded; }, 10000))
        return fail("loading a run's detail");
    if (auto *tabs = history->findChild<QTabWidget *>(QStringLiteral("historyDetailTabs")))
        tabs->setCurrentIndex(2);
    settle(800);
    if (!save(window.grab(), out, QStringLiteral("history.png")))
        return 1;
    return 0;
}
