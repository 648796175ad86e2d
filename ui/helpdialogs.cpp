// SPDX-License-Identifier: MIT
#include "helpdialogs.h"

#include "dialogfit.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QListWidget>
#include <QMenu>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

struct Topic
{
    const char *title;
    const char *resource;
};

// The user guide first, by task: what Help opens. Then the reference documents, which describe every part of
// the program in detail for those who want it; the design notes stay in the source tree. Built in rather than
// read from the installed copy under share/doc, which minimal installs leave out and which could belong to
// another version.
constexpr Topic Topics[] = {
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "User guide"), ":/docs/user-guide.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "The workbench in detail"), ":/docs/workbench.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "The command line"), ":/docs/cli.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "Policies"), ":/docs/policy.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "The network and its allowlists"),
     ":/docs/network.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "Files in and out"), ":/docs/files.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "History and events"), ":/docs/history.md"},
    {QT_TRANSLATE_NOOP("Cordon::Ui::DocumentationDialog", "Security"), ":/docs/security.md"},
};

QString readTopic(const char *resource)
{
    QFile file(QString::fromLatin1(resource));
    if (!file.open(QIODevice::ReadOnly))
        return DocumentationDialog::tr("This document is not built into this program.");
    QString text = QString::fromUtf8(file.readAll());
    // Screenshots are not built in: their lines would show as broken images.
    static const QRegularExpression image(QStringLiteral("^!\\[[^\\]]*\\]\\([^)]*\\)\\s*$"),
                                          QRegularExpression::MultilineOption);
    text.remove(image);
    return text;
}

} // namespace

DocumentationDialog::DocumentationDialog(QWidget *parent)
    : QDialog(parent), m_topics(new QListWidget(this)), m_text(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("documentationDialog"));
    setWindowTitle(tr("Cordon Help"));
    m_topics->setObjectName(QStringLiteral("documentationTopics"));
    m_topics->setAccessibleName(tr("Topics"));
    for (const Topic &topic : Topics)
        m_topics->addItem(tr(topic.title));
    m_topics->setMaximumWidth(m_topics->sizeHintForColumn(0) + 24);
    m_text->setObjectName(QStringLiteral("documentationText"));
    m_text->setAccessibleName(tr("Document"));
    m_text->setOpenExternalLinks(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_topics, &QListWidget::currentRowChanged, this, &DocumentationDialog::showTopic);

    auto *row = new QHBoxLayout;
    row->addWidget(m_topics);
    row->addWidget(m_text, 1);
    auto *layout = new QVBoxLayout;
    layout->addLayout(row, 1);
    DialogFit::install(this, layout, buttons, QSize(900, 640));
    m_topics->setCurrentRow(0);
}

QStringList DocumentationDialog::topics() const
{
    QStringList titles;
    for (int row = 0; row < m_topics->count(); ++row)
        titles.append(m_topics->item(row)->text());
    return titles;
}

void DocumentationDialog::showTopic(int index)
{
    if (index < 0 || index >= int(std::size(Topics)))
        return;
    if (m_topics->currentRow() != index)
        m_topics->setCurrentRow(index); // comes back here through currentRowChanged
    m_text->setMarkdown(readTopic(Topics[index].resource));
}

QString DocumentationDialog::shownText() const
{
    return m_text->toPlainText();
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &menus, QWidget *parent)
    : QDialog(parent), m_list(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_list->setObjectName(QStringLiteral("shortcutList"));
    m_list->setAccessibleName(tr("Keyboard shortcuts"));
    m_list->setHeaderLabels({tr("Action"), tr("Keys")});
    m_list->setSelectionMode(QAbstractItemView::NoSelection);
    for (QAction *menuAction : menus) {
        QMenu *menu = menuAction->menu();
        if (!menu)
            continue;
        QTreeWidgetItem *group = nullptr;
        for (QAction *action : menu->actions()) {
            if (action->isSeparator() || action->shortcut().isEmpty())
                continue;
            if (!group) {
                group = new QTreeWidgetItem(m_list, {menuAction->text().remove(QLatin1Char('&'))});
                group->setFirstColumnSpanned(true);
            }
            new QTreeWidgetItem(group, {action->text().remove(QLatin1Char('&')).remove(QStringLiteral("…")),
                                        action->shortcut().toString(QKeySequence::NativeText)});
        }
    }
    m_list->expandAll();
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout;
    layout->addWidget(m_list, 1);
    DialogFit::install(this, layout, buttons, QSize(460, 560));
}

QStringList ShortcutsDialog::rows() const
{
    QStringList rows;
    for (int g = 0; g < m_list->topLevelItemCount(); ++g) {
        const QTreeWidgetItem *group = m_list->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i)
            rows.append(QStringLiteral("%1 › %2: %3")
                            .arg(group->text(0), group->child(i)->text(0), group->child(i)->text(1)));
    }
    return rows;
}

QString aboutText(const QString &daemonVersion)
{
    const QString daemon =
        daemonVersion.isEmpty() ? DocumentationDialog::tr("not connected") : daemonVersion.toHtmlEscaped();
    return DocumentationDialog::tr(
               "<b>Cordon Workbench %1</b>"
               "<p>Runs untrusted code in containers that the kernel isolates, and shows what happened: the "
               "files, network and limits a run touched.</p>"
               "<p>Daemon (cordond): %2<br>Qt %3</p>"
               "<p>Licence: MIT. Free to use, change and share; provided without warranty.</p>")
        .arg(QCoreApplication::applicationVersion().toHtmlEscaped(), daemon, QString::fromLatin1(qVersion()));
}

} // namespace Cordon::Ui
