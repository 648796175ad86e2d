// SPDX-License-Identifier: MIT
// cordon-screenshot-tour: drives the real workbench window through its main
// views and saves each as a PNG, for docs/screenshots/ (run by
// tests/gui/make-screenshots.sh under Xvfb with a private daemon). Not a test:
// it fails loudly when a step does not happen, but checks nothing else.
#include "appearance.h"
#include "auditview.h"
#include "codeeditor.h"
#include "containerlistmodel.h"
#include "createcontainerdialog.h"
#include "csvuploaddialog.h"
#include "daemonconnection.h"
#include "eventtimelinemodel.h"
#include "eventtimelineview.h"
#include "filebrowser.h"
#include "helpdialogs.h"
#include "historymodel.h"
#include "historyview.h"
#include "inspectdialog.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "memoryprocesses.h"
#include "networkdecisionmodel.h"
#include "networkpanel.h"
#include "outcomebanner.h"
#include "rundetaildialog.h"
#include "rundetailview.h"
#include "runpanel.h"
#include "scanfindingsdialog.h"
#include "secretsdialog.h"
#include "settingsdialog.h"
#include "welcomepage.h"
#include "workbenchsettings.h"
#include "workspacefilemodel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QDockWidget>
#include <QGroupBox>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QTreeView>
#include <QTreeWidget>

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

// A dialog or a menu over the window, as the user sees it: the window dimmed (for dialogs) and the popup
// drawn where it is on screen.
QPixmap over(QWidget &window, QWidget &popup, bool dim, QPoint at = QPoint(-1, -1))
{
    QPixmap shot = window.grab();
    QPainter painter(&shot);
    if (dim)
        painter.fillRect(shot.rect(), QColor(0, 0, 0, 70));
    const QPixmap popupShot = popup.grab();
    if (at.x() < 0)
        at = QPoint(
            (shot.width() / shot.devicePixelRatio() - popupShot.width() / popupShot.devicePixelRatio()) / 2,
            (shot.height() / shot.devicePixelRatio() - popupShot.height() / popupShot.devicePixelRatio()) /
                3);
    painter.drawPixmap(at, popupShot);
    painter.setPen(QColor(0, 0, 0, 110));
    painter.drawRect(QRect(at, popupShot.deviceIndependentSize().toSize()).adjusted(-1, -1, 0, 0));
    return shot;
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
    // The window applies the theme from the settings (a private directory here) when it is built.
    if (dark)
        WorkbenchSettings::setTheme(Theme::Dark);
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
    if (!save(over(window, *dialog, true), out, prefix + QStringLiteral("create-dialog.png")))
        return 1;
    dialog->reject();
    settle(300);

    // Some quiet seconds first, so that the chart shows the container idle before
    // the program climbs.
    settle(12000);
    auto *panel = window.findChild<RunPanel *>();
    panel->runAction()->trigger();
    if (!waitFor([&] { return panel->banner()->text().startsWith(QStringLiteral("Exit code")); }, 60000))
        return fail("running the demo program");
    settle(1500);
    if (!save(window.grab(), out, prefix + QStringLiteral("main-window.png")))
        return 1;
    // A common laptop screen: nothing may be clipped at 1366x768 (columns, banner, legend, timer).
    window.resize(1366, 768);
    settle(800);
    if (!save(window.grab(), out, prefix + QStringLiteral("main-window-1366x768.png")))
        return 1;
    if (!dark) {
        // Inspect, over the window: the policy in words and the effective allowlist.
        if (InspectDialog *inspect = window.inspectCurrent()) {
            inspect->resize(760, 600);
            settle(800);
            const bool saved = save(over(window, *inspect, true), out, QStringLiteral("inspect.png"));
            inspect->close();
            if (!saved)
                return 1;
        }
    }
    window.resize(1280, 800);
    settle(300);

    // The memory view on its own, wider than in the window, after a program ran
    // into the 1 GiB limit: the climb, the limit line and the OOM kill mark.
    panel->editor()->setText(QStringLiteral("import time\nblocks = []\nwhile True:\n"
                                            "    blocks.append(bytearray(64 << 20))\n    time.sleep(0.1)\n"));
    panel->runAction()->trigger();
    if (!waitFor([&] { return panel->banner()->text().startsWith(QStringLiteral("Out of memory")); }, 60000))
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
        file.write("site,day,temperature,observer\nnorth,mon,11.5,ada@example.org\nnorth,tue,12.25,"
                   "ada@example.org\nsouth,mon,17,alan@example.org\nsouth,tue,18.5,grace@example.org\n"
                   "east,mon,14,alan@example.org\neast,tue,13.5,grace@example.org\n");
    }
    auto *files = window.findChild<FileBrowser *>();
    bool uploaded = false;
    QObject::connect(files, &FileBrowser::operationFinished, files, [&] { uploaded = true; });
    files->uploadFiles({upload});
    // Upload CSV: the observers' addresses reach the container as pseudonyms.
    CsvUploadDialog *csvDialog = nullptr;
    if (!waitFor(
            [&] {
                csvDialog = files->findChild<CsvUploadDialog *>();
                return csvDialog && csvDialog->isVisible() && csvDialog->isLoaded();
            },
            10000))
        return fail("opening Upload CSV");
    csvDialog->columnList()->item(3)->setCheckState(Qt::Checked);
    settle(300);
    if (!save(over(window, *csvDialog, true), out, prefix + QStringLiteral("csv-upload.png")))
        return 1;
    csvDialog->uploadButton()->click();
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
                                  "open('/mnt/data/outputs/settings.env', 'w').write('DB_HOST="
                                  "db01.corp\\nDB_PASSWORD=Xk9mQ2vL7pR4nZ8w\\n')\n"
                                  "os.symlink('/etc/passwd', '/mnt/data/outputs/passwd-link')\n"
                                  "print('wrote', sorted(os.listdir('/mnt/data/outputs')))\n"));
    panel->runAction()->trigger();
    if (!waitFor([&] { return panel->banner()->text().startsWith(QStringLiteral("Exit code 0")); }, 60000))
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

    // The event timeline: what happened to the containers, newest first.
    auto *timeline = history->findChild<EventTimelineView *>();
    bool timelineLoaded = false;
    QObject::connect(timeline, &EventTimelineView::pageLoaded, timeline, [&] { timelineLoaded = true; });
    history->findChild<QTabWidget *>(QStringLiteral("historyTabs"))->setCurrentWidget(timeline);
    if (!waitFor([&] { return timelineLoaded && timeline->model()->rowCount() > 0; }, 10000))
        return fail("listing the event timeline");
    settle(800);
    if (!save(window.grab(), out, QStringLiteral("history-timeline.png")))
        return 1;
    dock->hide();

    // The Go/No-Go audit of the selected container's policy, signed off.
    AuditView *audit = window.auditView();
    window.auditDock()->show();
    window.auditDock()->raise();
    window.resizeDocks({window.auditDock()}, {480}, Qt::Vertical);
    if (!audit->runAudit())
        return fail("starting the audit");
    if (!waitFor([&] { return !audit->isRunning() && !audit->report().isEmpty(); }, 240000))
        return fail("the audit");
    audit->signerName()->setText(QStringLiteral("Ada Reviewer"));
    audit->signerRole()->setText(QStringLiteral("Security lead"));
    audit->signReport();
    if (!waitFor([&] { return audit->report().contains(QStringLiteral("signature")); }, 20000))
        return fail("signing the audit");
    audit->rows()->topLevelItem(0)->setExpanded(true);
    audit->rows()->scrollToTop();
    settle(800);
    if (!save(window.grab(), out, QStringLiteral("audit.png")))
        return 1;
    window.resize(1366, 768);
    window.resizeDocks({window.auditDock()}, {400}, Qt::Vertical);
    settle(800);
    if (!save(window.grab(), out, QStringLiteral("audit-1366x768.png")))
        return 1;
    // A row's run, opened from the audit whole in a window of its own.
    QString auditRun;
    for (const QJsonValue &row : audit->report().value(QStringLiteral("rows")).toArray()) {
        if (auditRun.isEmpty())
            auditRun = AuditView::runOfRow(row.toObject());
    }
    Q_EMIT audit->runRequested(auditRun);
    RunDetailDialog *runWindow = nullptr;
    if (!waitFor(
            [&] {
                runWindow = window.findChild<RunDetailDialog *>();
                return runWindow && runWindow->detail()->run().contains(QStringLiteral("stdout"));
            },
            10000))
        return fail("opening the audit's run");
    settle(500);
    if (!save(over(window, *runWindow, true), out, QStringLiteral("audit-run.png")))
        return 1;
    runWindow->close();
    // Help › User Guide, over the window at the laptop's size.
    window.showDocumentation();
    auto *guide = window.findChild<DocumentationDialog *>();
    settle(500);
    if (!guide || !save(over(window, *guide, true), out, QStringLiteral("user-guide.png")))
        return fail("the user guide");
    guide->close();
    window.auditDock()->hide();
    window.resize(1280, 800);

    // The network editor: an organisation list, a container that may reach two hosts of it, and a program
    // that tries those and two others; the decisions with their counts, a denied host selected.
    auto call = [&](const QString &method, const QJsonObject &params) {
        QJsonObject answer;
        bool answered = false;
        window.connection().call(method, params, &window, [&](Cordon::Result<QJsonObject> result) {
            answered = true;
            if (result)
                answer = *result;
            else
                std::fprintf(stderr, "%s: %s\n", qPrintable(method), result.error().describe().c_str());
        });
        waitFor([&] { return answered; }, 30000);
        return answer;
    };
    call(QStringLiteral("network.set_org_policy"),
         {{QStringLiteral("allowed_domains"),
           QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org"),
                      QStringLiteral("registry.npmjs.org"), QStringLiteral("github.com"),
                      QStringLiteral("*.githubusercontent.com")}}});
    // PYPI_TOKEN is a domain secret: the program holds a placeholder, which the proxy refuses over plain
    // HTTP.
    call(QStringLiteral("secret.set"),
         {{QStringLiteral("name"), QStringLiteral("PYPI_TOKEN")},
          {QStringLiteral("value"), QStringLiteral("pypi-tour-0123456789abcdef")}});
    const QJsonObject pypiToken{{QStringLiteral("domain"), QStringLiteral("pypi.org")},
                                {QStringLiteral("name"), QStringLiteral("PYPI_TOKEN")}};
    const QJsonObject packagesNetwork{
        {QStringLiteral("type"), QStringLiteral("allowlist")},
        {QStringLiteral("allowed_domains"),
         QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org")}},
        {QStringLiteral("domain_secrets"), QJsonArray{pypiToken}}};
    const QJsonObject created =
        call(QStringLiteral("container.create"),
             {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("packages")},
                                                     {QStringLiteral("network_policy"), packagesNetwork}}}});
    const QString packages =
        created.value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    if (packages.isEmpty())
        return fail("creating a container with an allowlist");
    if (!waitFor([&] { return window.containerModel().rowOf(packages) >= 0; }, 10000))
        return fail("listing the allowlist container");
    window.selectContainer(packages);
    panel->setCode(QStringLiteral("python"),
                   QStringLiteral("# Tries the hosts a package install and a careless script would contact.\n"
                                  "import os, urllib.request\n"
                                  "token = {'Authorization': 'Bearer ' + os.environ['PYPI_TOKEN']}\n"
                                  "for url in ['https://pypi.org/simple/requests/', 'https://github.com/',\n"
                                  "            'https://example.com/', 'http://pypi.org/simple/numpy/',\n"
                                  "            'http://169.254.169.254/latest/meta-data/']:\n"
                                  "    try:\n"
                                  "        request = urllib.request.Request(url, headers=token)\n"
                                  "        print(url, urllib.request.urlopen(request, timeout=5).status)\n"
                                  "    except Exception as error:\n"
                                  "        print(url, error)\n"));
    panel->runAction()->trigger();
    if (!waitFor([&] { return panel->banner()->text().startsWith(QStringLiteral("Exit code")); }, 60000))
        return fail("running the network program");
    auto *network = window.networkPanel();
    panel->outputTabs()->setCurrentWidget(network);
    network->refreshDecisions();
    const auto decisionsShown = [&] {
        return network->decisionModel()->rowCount() >= 3 && network->secretDeliveries()->isVisible();
    };
    if (!waitFor(decisionsShown, 15000))
        return fail("listing the network decisions");
    for (int row = 0; row < network->decisionModel()->rowCount(); ++row) {
        if (network->decisionModel()->index(row, 0).data().toString() == QLatin1String("github.com"))
            network->decisionView()->selectRow(row);
    }
    if (auto *editorSplitter = window.findChild<QSplitter *>(QStringLiteral("editorSplitter")))
        editorSplitter->setSizes({200, 500});
    splitter->setSizes({240, 800, 340});
    settle(1000);
    if (!save(window.grab(), out, QStringLiteral("network-editor.png")))
        return 1;

    // Settings, on the organisation allowlist.
    window.showSettings();
    SettingsDialog *settings = nullptr;
    if (!waitFor([&] { return (settings = window.findChild<SettingsDialog *>()) && settings->isVisible(); },
                 5000))
        return fail("opening Settings");
    settings->tabs()->setCurrentIndex(1);
    settle(800);
    if (!save(over(window, *settings, true), out, QStringLiteral("settings.png")))
        return 1;
    settings->reject();
    settle(300);

    // Secrets: two in the store, one used by a container (names and fingerprints only).
    call(QStringLiteral("secret.set"),
         {{QStringLiteral("name"), QStringLiteral("OPENAI_API_KEY")},
          {QStringLiteral("value"), QStringLiteral("sk-tour-0123456789abcdef")}});
    call(QStringLiteral("secret.set"), {{QStringLiteral("name"), QStringLiteral("PGPASSWORD")},
                                        {QStringLiteral("value"), QStringLiteral("tour-password-42")}});
    call(QStringLiteral("container.create"),
         {{QStringLiteral("policy"),
           QJsonObject{
               {QStringLiteral("name"), QStringLiteral("agent")},
               {QStringLiteral("secrets"),
                QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("OPENAI_API_KEY")}}}}}}});
    window.showSecrets();
    SecretsDialog *secrets = nullptr;
    if (!waitFor([&] { return (secrets = window.findChild<SecretsDialog *>()) && secrets->isVisible(); },
                 5000))
        return fail("opening Secrets");
    settle(800);
    if (!save(over(window, *secrets, true), out, QStringLiteral("secrets.png")))
        return 1;
    secrets->reject();
    settle(300);

    // A download the artifact scan keeps back: a container whose policy blocks every finding, a run that
    // leaves a key and a cookie in its outputs, and the findings dialog that asks for a reason.
    const QString review = call(QStringLiteral("container.create"),
                                {{QStringLiteral("policy"),
                                  QJsonObject{{QStringLiteral("name"), QStringLiteral("review")},
                                              {QStringLiteral("artifact_scan"), QStringLiteral("block")}}}})
                               .value(QStringLiteral("container"))
                               .toObject()
                               .value(QStringLiteral("id"))
                               .toString();
    const QJsonObject started = call(
        QStringLiteral("run.exec"),
        {{QStringLiteral("container"), review},
         {QStringLiteral("command"),
          QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                     QStringLiteral("cd /mnt/data/outputs && printf 'region=eu-west-1\\naws_access_key_id = "
                                    "AKIAQ3EXAMPLE7JX2KPL\\ndb_host = 10.20.30.40\\n' > deploy.env && printf "
                                    "'Set-Cookie: session=8f14e45fceea167a5a36dedd4bea2543; Path=/\\n' > "
                                    "headers.txt && echo ok > summary.txt")}}});
    call(QStringLiteral("run.wait"),
         {{QStringLiteral("run_id"),
           started.value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}});
    window.selectContainer(review);
    panel->outputTabs()->setCurrentWidget(files);
    if (!waitFor(
            [&] {
                return files->model()
                    ->indexOf(QStringLiteral("outputs"), QStringLiteral("deploy.env"))
                    .isValid();
            },
            10000))
        return fail("listing the review container's outputs");
    QTemporaryDir reviewDownloads;
    files->downloadTo(reviewDownloads.path(), {files->model()->rootIndex(QStringLiteral("outputs"))});
    ScanFindingsDialog *findings = nullptr;
    if (!waitFor(
            [&] { return (findings = window.findChild<ScanFindingsDialog *>()) && findings->isVisible(); },
            30000))
        return fail("showing the artifact scan's findings");
    findings->reasonField()->setText(QStringLiteral("rotated key, reviewed by the security team"));
    settle(800);
    if (!save(over(window, *findings, true), out, QStringLiteral("scan-findings.png")))
        return 1;
    findings->reject();
    settle(300);

    // The trainer's Demo menu, open over the window, and the memory bomb in presentation mode.
    QMenu *demo = window.findChild<QMenu *>(QStringLiteral("demoMenu"));
    const QPoint menuAt = window.menuBar()->actionGeometry(demo->menuAction()).bottomLeft();
    demo->popup(window.mapToGlobal(menuAt + window.menuBar()->pos()));
    settle(600);
    if (!save(over(window, *demo, false, menuAt + window.menuBar()->pos()), out,
              QStringLiteral("demo-menu.png")))
        return 1;
    demo->hide();
    window.selectContainer(window.containerModel().index(0, 0).data(ContainerListModel::IdRole).toString());
    panel->outputTabs()->setCurrentIndex(0);
    window.setPresentationMode(true);
    panel->editor()->clear(); // nothing of the user's to keep: the demo needs no confirmation
    window.findChild<QAction *>(QStringLiteral("demo-memory-bomb"))->trigger();
    // In presentation mode the headline says what held.
    if (!waitFor(
            [&] { return panel->banner()->text().startsWith(QStringLiteral("Contained: out of memory")); },
            60000))
        return fail("running the memory bomb");
    window.resize(1600, 1000);
    splitter->setSizes({400, 780, 420});
    settle(1500);
    if (!save(window.grab(), out, QStringLiteral("presentation-mode.png")))
        return 1;
    // The projector a trainer has is often 1366x768 too.
    window.resize(1366, 768);
    settle(1200);
    const bool presented = save(window.grab(), out, QStringLiteral("presentation-1366x768.png"));
    window.setPresentationMode(false);
    return presented ? 0 : 1;
}
