// SPDX-License-Identifier: MIT
#include "allowlisteditor.h"

#include "allowlistmodel.h"
#include "core/policywords.h"
#include "daemonconnection.h"

#include "core/result.h"

#include <QAction>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

void showNote(QLabel *label, const QString &text, const QColor &colour)
{
    QPalette notePalette = label->parentWidget() ? label->parentWidget()->palette() : label->palette();
    if (colour.isValid())
        notePalette.setColor(QPalette::WindowText, colour);
    label->setPalette(notePalette);
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

// Keeps room for `lines` lines of `label` whether it says anything or not, so that nothing below it moves as
// its text comes and goes; a longer text still grows it.
void reserveLines(QLabel *label, int lines)
{
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    const QMargins margins = label->contentsMargins();
    label->setMinimumHeight(label->fontMetrics().lineSpacing() * lines + margins.top() + margins.bottom());
}

QString errorWithHint(const Error &error)
{
    const QString hint = toQt(error.hint());
    return hint.isEmpty() ? toQt(error.message()) : toQt(error.message()) + QLatin1Char('\n') + hint;
}

QList<AllowlistEditor::Preset> AllowlistEditor::presets()
{
    // pip reads the index from pypi.org and the files from files.pythonhosted.org; npm serves metadata and
    // tarballs from registry.npmjs.org; git over HTTPS uses github.com, archives come from codeload, raw
    // files from raw.githubusercontent.com, and release downloads are redirected to release-assets (since
    // 2025) or, for older links, objects.githubusercontent.com.
    return {
        {tr("Python packages"), {QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org")}},
        {tr("npm registry"), {QStringLiteral("registry.npmjs.org")}},
        {tr("GitHub"),
         {QStringLiteral("github.com"), QStringLiteral("api.github.com"),
          QStringLiteral("codeload.github.com"), QStringLiteral("raw.githubusercontent.com"),
          QStringLiteral("objects.githubusercontent.com"),
          QStringLiteral("release-assets.githubusercontent.com")}},
    };
}

AllowlistEditor::AllowlistEditor(DaemonConnection &connection, Mode mode, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_mode(mode), m_model(new AllowlistModel(this)),
      m_field(new QLineEdit(this)), m_fieldMessage(new QLabel(this)), m_addButton(new QPushButton(this)),
      m_presetButton(new QToolButton(this)), m_view(new QListView(this)),
      m_editButton(new QPushButton(tr("&Edit"), this)), m_removeButton(new QPushButton(tr("Re&move"), this)),
      m_summary(new QLabel(this)), m_meaning(new QLabel(this)), m_buttonRow(new QHBoxLayout)
{
    m_field->setObjectName(QStringLiteral("allowlistEntryField"));
    m_field->setAccessibleName(tr("Allowlist entry"));
    m_field->setPlaceholderText(tr("Add a host: pypi.org, *.example.org, example.com:8443"));
    m_field->setToolTip(tr(
        "A host name, a wildcard for its subdomains (*.example.org), an IP address, optionally with a port; "
        "or a rule object in JSON for methods, paths and several ports (docs/policy.md)"));
    m_field->setClearButtonEnabled(true);
    m_field->installEventFilter(this);
    m_fieldMessage->setObjectName(QStringLiteral("allowlistFieldMessage"));
    m_fieldMessage->setTextFormat(Qt::PlainText);
    m_fieldMessage->setWordWrap(true);
    m_fieldMessage->setAccessibleName(tr("Entry check"));
    reserveLines(m_fieldMessage, 2);

    m_addButton->setObjectName(QStringLiteral("allowlistAddButton"));
    m_addButton->setText(tr("&Add"));
    m_addButton->setToolTip(tr("Add the entry to the list (Return)"));
    m_presetButton->setObjectName(QStringLiteral("allowlistPresetButton"));
    m_presetButton->setText(tr("&Presets"));
    m_presetButton->setAccessibleName(tr("Add a preset"));
    m_presetButton->setToolTip(tr("Add the hosts a common tool needs"));
    m_presetButton->setPopupMode(QToolButton::InstantPopup);
    m_presetButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    buildPresetMenu();

    m_view->setObjectName(QStringLiteral("allowlistView"));
    m_view->setAccessibleName(mode == Mode::Container ? tr("Container allowlist")
                                                      : tr("Organisation allowlist"));
    m_view->setModel(m_model);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setUniformItemSizes(true);
    m_view->setAlternatingRowColors(true);
    m_view->installEventFilter(this);
    m_editButton->setObjectName(QStringLiteral("allowlistEditButton"));
    m_editButton->setToolTip(tr("Edit the selected entry in the field above (F2)"));
    m_removeButton->setObjectName(QStringLiteral("allowlistRemoveButton"));
    m_removeButton->setToolTip(tr("Remove the selected entry (Del)"));
    m_meaning->setObjectName(QStringLiteral("allowlistRuleMeaning"));
    m_meaning->setTextFormat(Qt::PlainText);
    m_meaning->setWordWrap(true);
    m_meaning->setAccessibleName(tr("What the selected entry allows"));
    reserveLines(m_meaning, 2);
    m_summary->setObjectName(QStringLiteral("allowlistSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);

    auto *fieldRow = new QHBoxLayout;
    fieldRow->addWidget(m_field, 1);
    fieldRow->addWidget(m_addButton);
    fieldRow->addWidget(m_presetButton);
    m_buttonRow->addWidget(m_editButton);
    m_buttonRow->addWidget(m_removeButton);
    m_buttonRow->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(fieldRow);
    layout->addWidget(m_fieldMessage);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_meaning);
    layout->addWidget(m_summary);
    layout->addLayout(m_buttonRow);

    m_listTimer.setSingleShot(true);
    m_listTimer.setInterval(0);
    m_fieldTimer.setSingleShot(true);
    m_fieldTimer.setInterval(CheckDelayMs);
    connect(&m_listTimer, &QTimer::timeout, this, &AllowlistEditor::checkList);
    connect(&m_fieldTimer, &QTimer::timeout, this, &AllowlistEditor::checkField);
    connect(m_field, &QLineEdit::textChanged, this, &AllowlistEditor::scheduleFieldCheck);
    connect(m_field, &QLineEdit::returnPressed, this, &AllowlistEditor::submitField);
    connect(m_addButton, &QPushButton::clicked, this, &AllowlistEditor::submitField);
    connect(m_editButton, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid())
            editRow(current.row());
    });
    connect(m_removeButton, &QPushButton::clicked, this, &AllowlistEditor::removeSelected);
    connect(m_view, &QListView::doubleClicked, this,
            [this](const QModelIndex &index) { editRow(index.row()); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &AllowlistEditor::updateButtons);
    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        // Answers lost with the connection are asked again.
        if (!m_connection.isConnected())
            return;
        if (m_listPending)
            scheduleListCheck();
        if (!m_field->text().trimmed().isEmpty())
            scheduleFieldCheck();
    });
    updateButtons();
}

void AllowlistEditor::buildPresetMenu()
{
    auto *menu = new QMenu(m_presetButton);
    const QStringList names{QStringLiteral("python"), QStringLiteral("npm"), QStringLiteral("github")};
    const QList<Preset> all = presets();
    for (qsizetype i = 0; i < all.size(); ++i) {
        const Preset &preset = all.at(i);
        QAction *action =
            menu->addAction(tr("%1 (%2)").arg(preset.name, preset.hosts.join(QStringLiteral(", "))));
        action->setObjectName(QStringLiteral("preset_") + names.value(i));
        connect(action, &QAction::triggered, this,
                [this, hosts = preset.hosts] { addEntries(QJsonArray::fromStringList(hosts)); });
    }
    m_presetButton->setMenu(menu);
}

void AllowlistEditor::setEntries(const QJsonArray &entries)
{
    cancelEdit();
    m_model->setEntries(entries);
    scheduleListCheck();
}

QJsonArray AllowlistEditor::entries() const
{
    return m_model->entries();
}

int AllowlistEditor::addEntries(const QJsonArray &entries)
{
    int added = 0;
    for (const QJsonValue &entry : entries) {
        if (m_model->find(entry) >= 0)
            continue;
        m_model->append(entry);
        ++added;
    }
    if (added > 0) {
        Q_EMIT entriesChanged();
        scheduleListCheck();
    }
    return added;
}

void AllowlistEditor::recheck()
{
    scheduleListCheck();
    if (!m_field->text().trimmed().isEmpty())
        scheduleFieldCheck();
}

void AllowlistEditor::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    if (readOnly) {
        cancelEdit();
        m_field->clear();
    }
    m_field->setVisible(!readOnly);
    m_addButton->setVisible(!readOnly);
    m_presetButton->setVisible(!readOnly);
    m_editButton->setVisible(!readOnly);
    m_removeButton->setVisible(!readOnly);
    updateButtons();
}

void AllowlistEditor::addTrailingButton(QPushButton *button)
{
    m_buttonRow->addWidget(button);
}

bool AllowlistEditor::isChecking() const
{
    return m_listPending || m_listTimer.isActive();
}

bool AllowlistEditor::isAcceptable() const
{
    return !isChecking() && m_model->allChecked() && m_model->problemCount(m_mode == Mode::Organisation) == 0;
}

QString AllowlistEditor::problemSummary() const
{
    if (isChecking() || !m_model->allChecked())
        return m_connection.isConnected() ? tr("Checking the list with cordond…")
                                          : tr("Not connected to cordond: the list cannot be checked.");
    int invalid = 0;
    int outside = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        invalid += m_model->status(row) == AllowlistModel::Status::Invalid;
        outside += m_model->status(row) == AllowlistModel::Status::Outside;
    }
    QStringList sentences;
    if (invalid > 0)
        sentences.append(tr("%n entries are refused; edit or remove them.", nullptr, invalid));
    if (outside > 0 && m_mode == Mode::Container)
        sentences.append(tr("%n entries are outside the organisation allowlist and cannot be allowed here.",
                            nullptr, outside));
    return sentences.join(QLatin1Char(' '));
}

QString AllowlistEditor::fieldMessage() const
{
    return m_fieldMessage->text();
}

void AllowlistEditor::scheduleListCheck()
{
    m_listPending = true;
    ++m_listGeneration; // an answer on its way is for an older list
    m_listTimer.start();
    updateButtons();
    Q_EMIT validityChanged();
}

void AllowlistEditor::checkList()
{
    if (!m_connection.isConnected()) {
        updateButtons(); // m_listPending stays set: asked again on connection
        Q_EMIT validityChanged();
        return;
    }
    const QJsonArray asked = m_model->entries();
    const quint64 generation = ++m_listGeneration;
    m_connection.call(
        QStringLiteral("network.check"), {{QStringLiteral("allowed_domains"), asked}}, this,
        [this, generation, asked](Result<QJsonObject> result) {
            if (generation != m_listGeneration)
                return;
            m_listPending = false;
            if (result)
                m_model->applyCheck(asked, result->value(QStringLiteral("entries")).toArray());
            updateButtons();
            if (!result)
                m_summary->setText(
                    tr("The list could not be checked: %1").arg(toQt(result.error().message())));
            Q_EMIT validityChanged();
        });
}

void AllowlistEditor::scheduleFieldCheck()
{
    ++m_fieldGeneration;
    m_fieldAcceptable = false;
    m_fieldPending = !m_field->text().trimmed().isEmpty();
    if (!m_fieldPending) {
        m_fieldTimer.stop();
        m_submitWhenChecked = false;
        setFieldMessage(QString(), QColor());
        updateButtons();
        return;
    }
    m_fieldTimer.start();
    updateButtons();
}

void AllowlistEditor::checkField()
{
    m_fieldTimer.stop();
    QString problem;
    const QJsonValue entry = AllowlistModel::parseEditText(m_field->text(), &problem);
    if (entry.isUndefined()) {
        m_fieldPending = false;
        m_submitWhenChecked = false;
        setFieldMessage(problem, AllowlistModel::problemColour(palette()));
        updateButtons();
        return;
    }
    if (!m_connection.isConnected()) {
        setFieldMessage(tr("Not connected to cordond: the entry cannot be checked yet."), QColor());
        return;
    }
    QJsonArray asked = othersThanEdited();
    asked.append(entry);
    const quint64 generation = ++m_fieldGeneration;
    m_connection.call(
        QStringLiteral("network.check"), {{QStringLiteral("allowed_domains"), asked}}, this,
        [this, generation, entry](Result<QJsonObject> result) {
            if (generation != m_fieldGeneration)
                return;
            m_fieldPending = false;
            m_fieldEntry = entry;
            const QJsonObject answer =
                result ? result->value(QStringLiteral("entries")).toArray().last().toObject() : QJsonObject();
            if (!result) {
                m_fieldAcceptable = false;
                setFieldMessage(tr("Could not check: %1").arg(toQt(result.error().message())),
                                AllowlistModel::problemColour(palette()));
            } else if (!answer.value(QStringLiteral("ok")).toBool()) {
                m_fieldAcceptable = false;
                setFieldMessage(tr("Refused: %1").arg(AllowlistModel::refusal(answer)),
                                AllowlistModel::problemColour(palette()));
            } else if (answer.contains(QStringLiteral("outside_organisation")) && m_mode == Mode::Container) {
                m_fieldAcceptable = false;
                setFieldMessage(tr("Outside the organisation allowlist, so it cannot be allowed here: %1")
                                    .arg(answer.value(QStringLiteral("outside_organisation"))
                                             .toObject()
                                             .value(QStringLiteral("message"))
                                             .toString()),
                                AllowlistModel::outsideColour(palette()));
            } else {
                m_fieldAcceptable = true;
                showNote(
                    m_fieldMessage,
                    tr("Valid: %1").arg(AllowlistModel::displayText(answer.value(QStringLiteral("rule")))),
                    QColor());
            }
            updateButtons();
            if (m_submitWhenChecked) {
                m_submitWhenChecked = false;
                submitField();
            }
        });
}

void AllowlistEditor::submitField()
{
    if (m_readOnly || m_field->text().trimmed().isEmpty())
        return;
    if (m_fieldPending || m_fieldTimer.isActive()) {
        // Return pressed before the verdict came: add once it does, if it allows.
        m_submitWhenChecked = true;
        if (m_fieldTimer.isActive())
            checkField();
        return;
    }
    if (!m_fieldAcceptable)
        return; // the verdict under the field says why
    if (m_editingRow >= 0)
        m_model->replace(m_editingRow, m_fieldEntry);
    else
        m_model->append(m_fieldEntry);
    cancelEdit();
    m_field->clear();
    m_field->setFocus(Qt::OtherFocusReason);
    Q_EMIT entriesChanged();
    scheduleListCheck();
}

void AllowlistEditor::editRow(int row)
{
    if (m_readOnly || row < 0 || row >= m_model->rowCount())
        return;
    m_editingRow = row;
    m_addButton->setText(tr("Re&place"));
    m_addButton->setToolTip(tr("Replace the entry being edited (Return); Escape stops editing"));
    m_field->setText(AllowlistModel::editText(m_model->entry(row)));
    m_field->setFocus(Qt::OtherFocusReason);
    m_field->selectAll();
}

void AllowlistEditor::removeSelected()
{
    const QModelIndex current = m_view->currentIndex();
    if (m_readOnly || !current.isValid())
        return;
    if (current.row() == m_editingRow) {
        cancelEdit();
        m_field->clear();
    } else if (m_editingRow > current.row()) {
        --m_editingRow;
    }
    m_model->remove(current.row());
    Q_EMIT entriesChanged();
    scheduleListCheck();
    if (!m_field->text().trimmed().isEmpty())
        scheduleFieldCheck(); // a duplicate may have gone
}

void AllowlistEditor::cancelEdit()
{
    m_editingRow = -1;
    m_addButton->setText(tr("&Add"));
    m_addButton->setToolTip(tr("Add the entry to the list (Return)"));
}

QJsonArray AllowlistEditor::othersThanEdited() const
{
    QJsonArray others = m_model->entries();
    if (m_editingRow >= 0 && m_editingRow < others.size())
        others.removeAt(m_editingRow);
    return others;
}

void AllowlistEditor::updateButtons()
{
    const bool selected = m_view->currentIndex().isValid();
    m_editButton->setEnabled(!m_readOnly && selected);
    m_removeButton->setEnabled(!m_readOnly && selected);
    m_addButton->setEnabled(!m_readOnly && !m_field->text().trimmed().isEmpty() &&
                            (m_fieldPending || m_fieldAcceptable));
    m_presetButton->setEnabled(!m_readOnly);
    const QString summary = problemSummary();
    const bool outsideOnly = !summary.isEmpty() && m_model->problemCount(true) == 0 && !isChecking();
    QPalette summaryPalette = palette();
    if (!summary.isEmpty() && !isChecking())
        summaryPalette.setColor(QPalette::WindowText, outsideOnly ? AllowlistModel::outsideColour(palette())
                                                                  : AllowlistModel::problemColour(palette()));
    m_summary->setPalette(summaryPalette);
    m_summary->setText(summary);
    m_summary->setVisible(!summary.isEmpty());

    // The selected rule in words, for a reviewer: the list's one-line form hides ports, methods and reach.
    const QString meaning = ruleMeaning();
    QPalette meaningPalette = palette();
    if (selected && PolicyWords::ruleIsRisky(m_model->rule(m_view->currentIndex().row())))
        meaningPalette.setColor(QPalette::WindowText, AllowlistModel::outsideColour(palette()));
    m_meaning->setPalette(meaningPalette);
    m_meaning->setText(meaning);
}

QString AllowlistEditor::ruleMeaning() const
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return {};
    const QJsonObject rule = m_model->rule(current.row());
    if (rule.isEmpty())
        return {};
    const QString caveat = PolicyWords::ruleCaveat(rule);
    return tr("Allows %1.").arg(PolicyWords::rule(rule)) +
           (caveat.isEmpty() ? QString() : QLatin1Char(' ') + caveat);
}

void AllowlistEditor::setFieldMessage(const QString &text, const QColor &colour)
{
    showNote(m_fieldMessage, text, colour);
    m_fieldMessage->show(); // empty or not: its lines are reserved
}

void AllowlistEditor::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // Presentation mode's larger font needs larger reserved lines.
    if (event->type() == QEvent::FontChange) {
        reserveLines(m_fieldMessage, 2);
        reserveLines(m_meaning, 2);
    }
}

bool AllowlistEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::KeyPress)
        return QWidget::eventFilter(watched, event);
    const int key = static_cast<QKeyEvent *>(event)->key();
    if (watched == m_field && key == Qt::Key_Escape && m_editingRow >= 0) {
        cancelEdit();
        m_field->clear();
        return true;
    }
    if (watched == m_view && (key == Qt::Key_Delete || key == Qt::Key_Backspace)) {
        removeSelected();
        return true;
    }
    if (watched == m_view && key == Qt::Key_F2 && m_view->currentIndex().isValid()) {
        editRow(m_view->currentIndex().row());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace Cordon::Ui
