// SPDX-License-Identifier: MIT
#include "runpanel.h"

#include "appearance.h"
#include "codeeditor.h"
#include "codestore.h"
#include "core/formatting.h"
#include "daemonconnection.h"
#include "elidedlabel.h"
#include "outcomebanner.h"
#include "outputconsole.h"
#include "paletteicon.h"
#include "runcontroller.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

RunPanel::RunPanel(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_controller(new RunController(connection, this)),
      m_title(new ElidedLabel(this)), m_language(new QComboBox(this)), m_runButton(new QToolButton(this)),
      m_stopButton(new QToolButton(this)), m_editor(new CodeEditor(this)),
      m_splitter(new QSplitter(Qt::Vertical, this)),
      m_runAction(new QAction(paletteIcon(QStringLiteral("run")), tr("&Run"), this)),
      m_stopAction(new QAction(paletteIcon(QStringLiteral("run-stop")), tr("S&top Run"), this)),
      m_clearAction(new QAction(paletteIcon(QStringLiteral("clear")), tr("C&lear Output"), this))
{
    m_runAction->setObjectName(QStringLiteral("runAction"));
    m_runAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return),
                               QKeySequence(Qt::CTRL | Qt::Key_Enter), QKeySequence(Qt::Key_F5)});
    m_runAction->setToolTip(tr("Run the code in the selected container (Ctrl+Return, F5)"));
    m_stopAction->setObjectName(QStringLiteral("stopRunAction"));
    m_stopAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    m_stopAction->setToolTip(tr("Stop the running program and everything it started (Shift+F5)"));
    m_clearAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    // The shortcuts must work while the editor has the focus, which is most of the time.
    for (QAction *action : {m_runAction, m_stopAction, m_clearAction})
        action->setShortcutContext(Qt::WindowShortcut);
    connect(m_runAction, &QAction::triggered, this, &RunPanel::run);
    connect(m_stopAction, &QAction::triggered, m_controller, &RunController::cancel);
    connect(m_clearAction, &QAction::triggered, this, [this] {
        m_console->clear();
        m_banner->clear();
    });

    m_title->setObjectName(QStringLiteral("runPanelTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextFormat(Qt::PlainText);
    for (const QString &language : CodeEditor::languages())
        m_language->addItem(CodeEditor::languageTitle(language), language);
    m_language->setAccessibleName(tr("Language"));
    m_language->setToolTip(tr("The language the code is run with"));
    auto *languageLabel = new QLabel(tr("&Language:"), this);
    languageLabel->setBuddy(m_language);
    // A projector's row has no room for the label: the combo box says the language itself, and the title,
    // the container's name, needs the width more.
    const auto fitHeader = [languageLabel] { languageLabel->setVisible(!Appearance::presentation()); };
    fitHeader();
    connect(Appearance::notifier(), &AppearanceNotifier::fontsChanged, this, fitHeader);
    m_runButton->setDefaultAction(m_runAction);
    m_runButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_runButton->setAccessibleName(tr("Run"));
    m_stopButton->setDefaultAction(m_stopAction);
    m_stopButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_stopButton->setAccessibleName(tr("Stop run"));

    auto *header = new QHBoxLayout;
    header->setContentsMargins(10, 6, 8, 6);
    header->setSpacing(8);
    header->addWidget(m_title, 1);
    header->addWidget(languageLabel);
    header->addWidget(m_language);
    header->addSpacing(6);
    header->addWidget(m_runButton);
    header->addWidget(m_stopButton);

    m_outputPages = new QStackedWidget(this);
    m_outputPages->setObjectName(QStringLiteral("outputPages"));
    m_outputTabs = new QTabWidget(this);
    m_outputTabs->setObjectName(QStringLiteral("outputTabs"));
    m_outputTabs->setDocumentMode(true);
    m_outputTabs->addTab(m_outputPages, tr("Output"));
    m_splitter->addWidget(m_editor);
    m_splitter->addWidget(m_outputTabs);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setObjectName(QStringLiteral("editorSplitter"));
    // A tab below the editor that needs more height than it has (the Network tab's lists, rule and decisions)
    // takes it from the editor while it is shown, and gives it back when the output is shown again.
    connect(m_outputTabs, &QTabWidget::currentChanged, this, &RunPanel::fitOutputTab);
    m_splitter->installEventFilter(this);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(header);
    layout->addWidget(m_splitter, 1);

    m_saveTimer.setSingleShot(true);
    m_saveTimer.setInterval(400);
    connect(&m_saveTimer, &QTimer::timeout, this, &RunPanel::saveCode);
    connect(m_editor, &QsciScintilla::textChanged, &m_saveTimer, qOverload<>(&QTimer::start));
    connect(m_language, &QComboBox::currentIndexChanged, this, [this] {
        m_editor->setLanguage(m_language->currentData().toString());
        m_saveTimer.start();
    });

    connect(m_controller, &RunController::started, this, &RunPanel::onStarted);
    connect(m_controller, &RunController::finished, this, &RunPanel::onFinished);
    connect(m_controller, &RunController::runningChanged, this, &RunPanel::updateActions);
    connect(m_controller, &RunController::output, this, [this](bool isStderr, const QByteArray &bytes) {
        runPage().console->append(isStderr ? OutputConsole::Stream::Stderr : OutputConsole::Stream::Stdout,
                                  bytes);
    });
    connect(&m_connection, &DaemonConnection::statusChanged, this, &RunPanel::updateActions);

    // The page shown while no container is selected; setContainer() switches pages from here on.
    const OutputPage &none = pageFor(QString());
    m_banner = none.banner;
    m_console = none.console;
    setContainer({});
}

RunPanel::OutputPage &RunPanel::pageFor(const QString &containerId)
{
    auto found = m_pages.find(containerId);
    if (found != m_pages.end())
        return *found;
    OutputPage page;
    page.area = new QWidget(m_outputPages);
    page.banner = new OutcomeBanner(page.area);
    page.console = new OutputConsole(page.area);
    auto *layout = new QVBoxLayout(page.area);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(page.banner);
    layout->addWidget(page.console, 1);
    m_outputPages->addWidget(page.area);
    OutputConsole *console = page.console;
    // Input is open only on the page of a run that reads it, so a line typed here is that run's.
    connect(console, &OutputConsole::inputSubmitted, this, [this, console](const QByteArray &line) {
        // Echoed, as a terminal would, so the transcript reads in order.
        console->append(OutputConsole::Stream::Stdout, line);
        m_controller->sendInput(line);
    });
    connect(console, &OutputConsole::endOfInputRequested, m_controller, &RunController::endInput);
    return *m_pages.insert(containerId, page);
}

RunPanel::OutputPage &RunPanel::runPage()
{
    return pageFor(m_controller->containerId());
}

void RunPanel::dropPage(const QString &containerId)
{
    const auto found = m_pages.find(containerId);
    if (found == m_pages.end())
        return;
    delete found->area;
    m_pages.erase(found);
}

RunPanel::~RunPanel()
{
    saveCode();
}

bool RunPanel::isRunning() const
{
    return m_controller->isRunning();
}

void RunPanel::setContainer(const QJsonObject &container)
{
    const QString id = container.value(QStringLiteral("id")).toString();
    if (id != m_containerId) {
        saveCode();
        keepEditorView();
        // A deleted container's page goes once it is no longer shown, unless its run is still ending.
        if (!m_pageToDrop.isEmpty() && m_pageToDrop != id &&
            !(m_controller->isRunning() && m_controller->containerId() == m_pageToDrop)) {
            dropPage(m_pageToDrop);
            m_pageToDrop.clear();
        }
        const OutputPage &page = pageFor(id);
        m_outputPages->setCurrentWidget(page.area);
        m_banner = page.banner;
        m_console = page.console;
        m_containerId = id;
        m_discarded = false;
        const CodeStore::Entry entry = CodeStore::load(id);
        // Loading is not typing: no save is scheduled for it.
        const QSignalBlocker blockEditor(m_editor);
        const QSignalBlocker blockLanguage(m_language);
        m_editor->setLanguage(entry.language);
        m_language->setCurrentIndex(qMax(0, m_language->findData(m_editor->language())));
        m_editor->setText(entry.code);
        m_editor->setModified(false);
        restoreEditorView();
    }
    m_container = container;
    if (container.isEmpty()) {
        m_title->setText(tr("No container selected"));
        m_title->setShortText({});
    } else {
        const QString name = container.value(QStringLiteral("name")).toString();
        m_title->setText(
            tr("%1  ·  %2 memory")
                .arg(name, Format::bytes(container.value(QStringLiteral("memory_limit")).toInteger())));
        // Where the row is narrow (presentation mode) the name is what a class must read.
        m_title->setShortText(name);
    }
    updateActions();
}

void RunPanel::setCode(const QString &language, const QString &code)
{
    m_language->setCurrentIndex(qMax(0, m_language->findData(language)));
    m_editor->setLanguage(language);
    m_editor->setText(code);
    saveCode();
}

void RunPanel::keepEditorView()
{
    EditorView view;
    view.firstLine = m_editor->firstVisibleLine();
    view.xOffset = int(m_editor->SendScintilla(QsciScintillaBase::SCI_GETXOFFSET));
    m_editor->getCursorPosition(&view.cursorLine, &view.cursorIndex);
    m_editorViews.insert(m_containerId, view);
}

void RunPanel::restoreEditorView()
{
    // A container not shown before starts at the top left.
    const EditorView view = m_editorViews.value(m_containerId);
    m_editor->setCursorPosition(view.cursorLine, view.cursorIndex);
    m_editor->setFirstVisibleLine(view.firstLine);
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETXOFFSET, view.xOffset);
}

void RunPanel::saveCode()
{
    m_saveTimer.stop();
    if (m_discarded)
        return;
    CodeStore::save(m_containerId, {m_editor->language(), m_editor->text()});
}

void RunPanel::discardCode(const QString &containerId)
{
    if (containerId == m_containerId) {
        m_saveTimer.stop();
        // No save when the selection moves on: the container is gone.
        m_discarded = true;
    }
    CodeStore::forget(containerId);
    m_editorViews.remove(containerId);
    if (containerId == m_containerId)
        m_pageToDrop = containerId;
    else if (!(m_controller->isRunning() && m_controller->containerId() == containerId))
        dropPage(containerId);
}

void RunPanel::run()
{
    if (!m_runAction->isEnabled())
        return;
    if (m_container.value(QStringLiteral("state")).toString() == QLatin1String("stopped"))
        return askToStartAndRun();
    saveCode();
    m_console->clear();
    m_console->appendNote(tr("Running %1 in %2…")
                              .arg(CodeEditor::languageTitle(m_editor->language()),
                                   m_container.value(QStringLiteral("name")).toString()));
    m_banner->setSummary(OutcomeSummary::running(CodeEditor::languageTitle(m_editor->language())));
    m_controller->run(m_containerId, m_editor->language(), m_editor->text(),
                      m_container.value(QStringLiteral("memory_limit")).toInteger(),
                      m_container.value(QStringLiteral("policy"))
                          .toObject()
                          .value(QStringLiteral("limits"))
                          .toObject()
                          .value(QStringLiteral("pids"))
                          .toInteger());
}

bool RunPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_splitter && event->type() == QEvent::Resize)
        fitOutputTab();
    return QWidget::eventFilter(watched, event);
}

void RunPanel::fitOutputTab()
{
    QWidget *tab = m_outputTabs->currentWidget();
    if (!tab || m_splitter->count() != 2)
        return;
    if (m_outputTabs->currentIndex() == 0) {
        // Back to the output: the editor gets its height back, unless the user moved the splitter since.
        if (!m_sizesBeforeFit.isEmpty() && m_splitter->sizes() == m_sizesAfterFit)
            m_splitter->setSizes(m_sizesBeforeFit);
        m_sizesBeforeFit.clear();
        return;
    }
    const QList<int> sizes = m_splitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    const int wanted = tab->sizeHint().height() + m_outputTabs->tabBar()->sizeHint().height();
    // The editor keeps a few lines of code in sight.
    const int editorMinimum = m_editor->fontMetrics().lineSpacing() * 5 + m_editor->frameWidth() * 2;
    const int tabs = qMin(wanted, total - editorMinimum);
    if (total <= 0 || tabs <= sizes.value(1))
        return;
    if (m_sizesBeforeFit.isEmpty())
        m_sizesBeforeFit = sizes;
    m_splitter->setSizes({total - tabs, tabs});
    m_sizesAfterFit = m_splitter->sizes();
}

void RunPanel::askToStartAndRun()
{
    const QString id = m_containerId;
    const QString name = m_container.value(QStringLiteral("name")).toString();
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Start the Container?"),
                        tr("%1 is stopped. Start it and run the code?").arg(name), QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("startToRunQuestion"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(
        tr("Its files are as it left them. Once started, its idle timer counts down again."));
    QPushButton *start = box->addButton(tr("&Start and Run"), QMessageBox::AcceptRole);
    start->setObjectName(QStringLiteral("startAndRunButton"));
    box->setDefaultButton(start);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, start, id, name] {
        if (box->clickedButton() != start || id != m_containerId)
            return;
        m_starting = true;
        updateActions();
        m_console->appendNote(tr("Starting %1…").arg(name));
        m_connection.call(
            QStringLiteral("container.start"), {{QStringLiteral("id"), id}}, this,
            [this, id, name](Result<QJsonObject> result) {
                m_starting = false;
                if (id != m_containerId)
                    return updateActions();
                if (!result) {
                    m_console->appendNote(
                        tr("%1 could not be started: %2").arg(name, toQt(result.error().message())));
                    return updateActions();
                }
                setContainer(result->value(QStringLiteral("container")).toObject());
                run();
            });
    });
    box->open();
}

void RunPanel::onStarted(const QString &)
{
    runPage().console->setInputOpen(true);
    // The program's output is what the user waits for now, if they are still looking at its container.
    if (m_controller->containerId() == m_containerId)
        m_outputTabs->setCurrentIndex(0);
}

void RunPanel::onFinished(const OutcomeSummary &summary, const QJsonObject &run)
{
    OutputPage &page = runPage();
    page.console->finishRun(run.value(QStringLiteral("id")).toString(m_controller->runId()));
    page.banner->setSummary(summary);
    if (!run.isEmpty())
        Q_EMIT runFinished(run.value(QStringLiteral("container")).toString());
}

void RunPanel::updateActions()
{
    const bool running = m_controller->isRunning();
    const QString state = m_container.value(QStringLiteral("state")).toString();
    const bool stopped = state == QLatin1String("stopped");
    // A stopped container can run too: Run asks to start it first.
    const bool usable = m_connection.isConnected() && (state == QLatin1String("running") || stopped);
    m_runAction->setEnabled(usable && !running && !m_starting);
    m_stopAction->setEnabled(running && m_connection.isConnected());
    QString why;
    if (usable && stopped)
        why = tr("Start %1 and run the code in it (Ctrl+Return, F5; it asks first)")
                  .arg(m_container.value(QStringLiteral("name")).toString());
    else if (usable)
        why = tr("Run the code in %1 (Ctrl+Return, F5)")
                  .arg(m_container.value(QStringLiteral("name")).toString());
    else if (m_container.isEmpty())
        why = tr("Select or create a container to run code in");
    else if (!m_connection.isConnected())
        why = tr("Not connected to cordond");
    else if (state == QLatin1String("expired"))
        why = tr("This container expired and its files are gone; create a new one to run code");
    else
        why = tr("Start the container to run code in it");
    m_runAction->setToolTip(why);
}

} // namespace Cordon::Ui
