// SPDX-License-Identifier: MIT
// The centre of the window: the selected container's code in the editor with its language, Run and Stop,
// and below it the outcome banner and the output console of the container's last run. Each container has its
// own output page, so selecting another container never shows one container's outcome under another's code,
// and a run keeps writing to its own page while another container is looked at. Code is saved per container
// as it is typed (CodeStore), so neither a restart nor a lost daemon loses it.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QTimer>
#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace Cordon::Ui {

class CodeEditor;
class DaemonConnection;
class ElidedLabel;
class OutcomeBanner;
class OutputConsole;
class RunController;
struct OutcomeSummary;

class RunPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RunPanel)

public:
    RunPanel(DaemonConnection &connection, QWidget *parent = nullptr);
    ~RunPanel() override;

    // The container the editor belongs to (its code is loaded); an empty object for none.
    void setContainer(const QJsonObject &container);
    // Replaces the editor's code, e.g. with the demo program.
    void setCode(const QString &language, const QString &code);
    // Writes the editor's code to the settings now (before quitting).
    void saveCode();
    // Forgets the code kept for a deleted container, also when it is the one in the editor.
    void discardCode(const QString &containerId);

    QAction *runAction() const { return m_runAction; }
    QAction *stopAction() const { return m_stopAction; }
    QAction *clearAction() const { return m_clearAction; }
    CodeEditor *editor() const { return m_editor; }
    // The selected container's output page.
    OutputConsole *console() const { return m_console; }
    OutcomeBanner *banner() const { return m_banner; }
    QSplitter *splitter() const { return m_splitter; }
    // Below the editor: the output, and beside it whatever the window adds (the file browser).
    QTabWidget *outputTabs() const { return m_outputTabs; }
    bool isRunning() const;

Q_SIGNALS:
    // A run ended; the container's idle deadline moved.
    void runFinished(const QString &containerId);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct OutputPage
    {
        QWidget *area = nullptr;
        OutcomeBanner *banner = nullptr;
        OutputConsole *console = nullptr;
    };

    // The container's page, made on first use.
    OutputPage &pageFor(const QString &containerId);
    // The page of the container the current (or last) run is in.
    OutputPage &runPage();
    void dropPage(const QString &containerId);
    void run();
    // Run on a stopped container: asks to start it, and runs once it has started.
    void askToStartAndRun();
    void onStarted(const QString &runId);
    void onFinished(const OutcomeSummary &summary, const QJsonObject &run);
    void updateActions();
    // Gives the tab shown below the editor the height its size hint asks for, from the editor; the output tab
    // gives it back.
    void fitOutputTab();

    DaemonConnection &m_connection;
    RunController *m_controller;
    QJsonObject m_container;
    QString m_containerId;
    // Where each container's code was scrolled to and its cursor stood: one editor shows every container's
    // code, and another container's scroll position made a short program look blank or cut.
    struct EditorView
    {
        int firstLine = 0;
        int xOffset = 0;
        int cursorLine = 0;
        int cursorIndex = 0;
    };
    QHash<QString, EditorView> m_editorViews;
    void keepEditorView();
    void restoreEditorView();
    bool m_discarded = false; // the container was deleted: its code is not saved again
    bool m_starting = false;  // Run asked the daemon to start the stopped container
    QTimer m_saveTimer;

    ElidedLabel *m_title;
    QComboBox *m_language;
    QToolButton *m_runButton;
    QToolButton *m_stopButton;
    CodeEditor *m_editor;
    QStackedWidget *m_outputPages;
    QHash<QString, OutputPage> m_pages; // by container id; "" while none is selected
    QString m_pageToDrop;               // a deleted container's page, dropped once the selection moves on
    OutcomeBanner *m_banner = nullptr;  // the selected container's page
    OutputConsole *m_console = nullptr;
    QSplitter *m_splitter;
    QList<int> m_sizesBeforeFit; // the splitter before a tab took height from the editor
    QList<int> m_sizesAfterFit;
    QTabWidget *m_outputTabs;
    QAction *m_runAction;
    QAction *m_stopAction;
    QAction *m_clearAction;
};

} // namespace Cordon::Ui
