// SPDX-License-Identifier: MIT
#include "orgallowlisteditor.h"

#include "allowlisteditor.h"
#include "allowlistmodel.h"
#include "core/formatting.h"
#include "daemonconnection.h"

#include <QDir>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

QString shortPath(const QString &path)
{
    const QString home = QDir::homePath();
    return path.startsWith(home + QLatin1Char('/')) ? QStringLiteral("~") + path.mid(home.size()) : path;
}

} // namespace

OrgAllowlistEditor::OrgAllowlistEditor(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_source(new QLabel(this)),
      m_editor(new AllowlistEditor(connection, AllowlistEditor::Mode::Organisation, this)),
      m_save(new QPushButton(tr("&Save List"), this)), m_revert(new QPushButton(tr("Re&vert"), this)),
      m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("orgAllowlistEditor"));
    m_source->setObjectName(QStringLiteral("orgSource"));
    m_source->setTextFormat(Qt::PlainText);
    m_source->setWordWrap(true);
    m_source->setForegroundRole(QPalette::PlaceholderText);
    m_editor->view()->setAccessibleName(tr("Organisation allowlist"));
    m_save->setObjectName(QStringLiteral("orgSaveButton"));
    m_save->setToolTip(
        tr("Write the list to your organisation allowlist file; running containers follow at once"));
    m_revert->setObjectName(QStringLiteral("orgRevertButton"));
    m_revert->setToolTip(tr("Back to the list in force"));
    m_message->setObjectName(QStringLiteral("orgMessage"));
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();

    m_editor->addTrailingButton(m_revert);
    m_editor->addTrailingButton(m_save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_source);
    layout->addWidget(m_editor, 1);
    layout->addWidget(m_message);

    connect(m_save, &QPushButton::clicked, this, &OrgAllowlistEditor::save);
    connect(m_revert, &QPushButton::clicked, this, &OrgAllowlistEditor::revert);
    connect(m_editor, &AllowlistEditor::entriesChanged, this, [this] {
        setMessage(QString(), false);
        updateButtons();
    });
    connect(m_editor, &AllowlistEditor::validityChanged, this, &OrgAllowlistEditor::updateButtons);
    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        if (m_connection.isConnected())
            reload();
        updateButtons();
    });
    m_source->setText(tr("Reading the organisation allowlist…"));
    if (m_connection.isConnected())
        reload();
    updateButtons();
}

bool OrgAllowlistEditor::isAdministered() const
{
    return m_organisation.value(QStringLiteral("administered")).toBool();
}

bool OrgAllowlistEditor::isModified() const
{
    return !m_organisation.isEmpty() &&
           m_editor->entries() != m_organisation.value(QStringLiteral("allowed_domains")).toArray();
}

bool OrgAllowlistEditor::canSave() const
{
    return !m_busy && !isAdministered() && isModified() && m_editor->isAcceptable() &&
           m_connection.isConnected();
}

QString OrgAllowlistEditor::sourceText() const
{
    return m_source->text();
}

QString OrgAllowlistEditor::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
}

void OrgAllowlistEditor::reload()
{
    if (!m_connection.isConnected())
        return;
    m_connection.call(QStringLiteral("network.org_policy"), {}, this, [this](Result<QJsonObject> result) {
        if (!result) {
            m_source->setText(
                tr("The organisation allowlist could not be read: %1").arg(toQt(result.error().message())));
            return;
        }
        showOrganisation(*result);
    });
}

void OrgAllowlistEditor::showOrganisation(const QJsonObject &organisation)
{
    const bool changed = organisation != m_organisation;
    const bool keepEdits = isModified() && !organisation.value(QStringLiteral("administered")).toBool();
    m_organisation = organisation;
    const QString path = shortPath(organisation.value(QStringLiteral("path")).toString());
    const QString source = organisation.value(QStringLiteral("source")).toString();
    if (source == QLatin1String("system"))
        m_source->setText(tr("Set by your administrator in %1. Read-only: ask them to change it.").arg(path));
    else if (source == QLatin1String("missing"))
        m_source->setText(
            tr("No list yet (%1 does not exist): no container may reach any host until hosts are "
               "added here.")
                .arg(path));
    else
        m_source->setText(tr("Your list, in %1. Every container's allowlist must stay inside it.").arg(path));
    // An edit of the file that cannot be read: the list shown is the one still in force, said so first.
    const QJsonObject fileError = organisation.value(QStringLiteral("file_error")).toObject();
    if (!fileError.isEmpty())
        m_source->setText(tr("%1 has an error since %2: %3. The list below, read before, stays in force.")
                              .arg(path,
                                   Format::dateTime(fileError.value(QStringLiteral("since")).toInteger()),
                                   fileError.value(QStringLiteral("message")).toString()));
    m_source->setForegroundRole(fileError.isEmpty() ? QPalette::PlaceholderText : QPalette::WindowText);
    m_editor->setReadOnly(isAdministered());
    if (!keepEdits && m_editor->entries() != organisation.value(QStringLiteral("allowed_domains")).toArray())
        m_editor->setEntries(organisation.value(QStringLiteral("allowed_domains")).toArray());
    updateButtons();
    if (changed)
        Q_EMIT organisationChanged(organisation);
}

void OrgAllowlistEditor::save()
{
    if (!canSave())
        return;
    // Every container is bound by it: what changes is said before anything is written.
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Save Organisation Allowlist"),
                        tr("Save these changes to the organisation allowlist?"), QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("orgSaveQuestion"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(changeSummary());
    QPushButton *confirm = box->addButton(tr("&Save"), QMessageBox::AcceptRole);
    confirm->setObjectName(QStringLiteral("orgSaveConfirm"));
    box->setDefaultButton(confirm);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, confirm] {
        if (box->clickedButton() == confirm)
            write();
        else
            Q_EMIT saved(false);
    });
    box->open();
}

QString OrgAllowlistEditor::changeSummary() const
{
    const QJsonArray before = m_organisation.value(QStringLiteral("allowed_domains")).toArray();
    const QJsonArray after = m_editor->entries();
    QStringList added;
    QStringList removed;
    for (const QJsonValue &entry : after) {
        if (!before.contains(entry))
            added.append(AllowlistModel::editText(entry));
    }
    for (const QJsonValue &entry : before) {
        if (!after.contains(entry))
            removed.append(AllowlistModel::editText(entry));
    }
    QStringList paragraphs;
    if (!added.isEmpty())
        paragraphs.append(tr("Added (%1): %2").arg(added.size()).arg(added.join(QStringLiteral(", "))));
    if (!removed.isEmpty())
        paragraphs.append(tr("Removed (%1): %2. Containers can no longer reach what only these allowed.")
                              .arg(removed.size())
                              .arg(removed.join(QStringLiteral(", "))));
    if (added.isEmpty() && removed.isEmpty())
        paragraphs.append(tr("The same entries, in another order."));
    paragraphs.append(tr("Written to %1, where only the list changes: the rest of the file stays as it is "
                         "laid out. Running containers follow at once.")
                          .arg(shortPath(m_organisation.value(QStringLiteral("path")).toString())));
    return paragraphs.join(QStringLiteral("\n\n"));
}

void OrgAllowlistEditor::write()
{
    m_busy = true;
    updateButtons();
    m_connection.call(
        QStringLiteral("network.set_org_policy"), {{QStringLiteral("allowed_domains"), m_editor->entries()}},
        this, [this](Result<QJsonObject> result) {
            m_busy = false;
            if (!result) {
                setMessage(tr("Not saved: %1").arg(errorWithHint(result.error())), true);
                updateButtons();
                Q_EMIT saved(false);
                return;
            }
            // What the daemon read back: its canonical form of every entry.
            m_editor->setEntries(result->value(QStringLiteral("allowed_domains")).toArray());
            showOrganisation(*result);
            setMessage(tr("Saved: %n entries, in force for every container now.", nullptr,
                          int(result->value(QStringLiteral("allowed_domains")).toArray().size())),
                       false);
            Q_EMIT saved(true);
        });
}

void OrgAllowlistEditor::revert()
{
    m_editor->setEntries(m_organisation.value(QStringLiteral("allowed_domains")).toArray());
    setMessage(QString(), false);
    updateButtons();
}

void OrgAllowlistEditor::setMessage(const QString &text, bool problem)
{
    showNote(m_message, text, problem ? AllowlistModel::problemColour(palette()) : QColor());
}

void OrgAllowlistEditor::updateButtons()
{
    m_save->setVisible(!isAdministered());
    m_revert->setVisible(!isAdministered());
    m_save->setEnabled(canSave());
    m_save->setToolTip(isModified() && !m_editor->isAcceptable()
                           ? m_editor->problemSummary()
                           : tr("Write the list to your organisation allowlist "
                                "file; running containers follow at once"));
    m_revert->setEnabled(!m_busy && isModified());
    Q_EMIT stateChanged();
}

} // namespace Cordon::Ui
