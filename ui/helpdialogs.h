// SPDX-License-Identifier: MIT
// The Help menu's windows: the user guide by task and the reference documents (the project's own docs/*.md,
// built into the program so they match this version and need no browser or network), the keyboard shortcuts
// (read from the window's actions, so the list cannot drift from what the keys do), and About (version,
// licence, and the daemon's version).
#pragma once

#include <QDialog>
#include <QList>

class QAction;
class QListWidget;
class QTextBrowser;
class QTreeWidget;

namespace Cordon::Ui {

class DocumentationDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DocumentationDialog)

public:
    explicit DocumentationDialog(QWidget *parent = nullptr);

    // The topics offered, as their titles ("User guide", "The command line", ...); the first is shown first.
    QStringList topics() const;
    void showTopic(int index);
    // The text of the topic shown, as plain text.
    QString shownText() const;

private:
    QListWidget *m_topics;
    QTextBrowser *m_text;
};

class ShortcutsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShortcutsDialog)

public:
    // Every action with a shortcut, grouped by the menu it is in (menus: the menu bar's).
    ShortcutsDialog(const QList<QAction *> &menus, QWidget *parent = nullptr);

    // "Menu › Action: keys" per row, for tests.
    QStringList rows() const;

private:
    QTreeWidget *m_list;
};

// The About text: workbench version, licence, and the daemon's version (empty when not connected).
QString aboutText(const QString &daemonVersion);

} // namespace Cordon::Ui
