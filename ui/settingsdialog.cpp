// SPDX-License-Identifier: MIT
#include "settingsdialog.h"

#include "appearance.h"
#include "daemonconnection.h"
#include "dialogfit.h"
#include "orgallowlisteditor.h"
#include "workbenchsettings.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace Cordon::Ui {

SettingsDialog::SettingsDialog(DaemonConnection &connection, QWidget *parent)
    : QDialog(parent), m_connection(connection), m_tabs(new QTabWidget(this))
{
    setWindowTitle(tr("Preferences"));
    m_tabs->addTab(buildGeneralPage(), tr("&General"));
    m_tabs->addTab(buildNetworkPage(), tr("&Organisation Allowlist"));
    m_tabs->addTab(buildDataPage(), tr("&Data"));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout;
    layout->addWidget(m_tabs, 1);
    DialogFit::install(this, layout, buttons, QSize(640, 480));
    loadDataLocation();
}

QWidget *SettingsDialog::buildGeneralPage()
{
    auto *page = new QWidget(this);
    m_memory = new QComboBox(page);
    m_memory->setObjectName(QStringLiteral("defaultMemory"));
    m_memory->setAccessibleName(tr("Default memory limit"));
    for (int gib : WorkbenchSettings::memoryTiers())
        m_memory->addItem(tr("%1 GiB").arg(gib), gib);
    m_memory->setCurrentIndex(m_memory->findData(WorkbenchSettings::defaultMemoryGib()));

    m_idleMinutes = new QSpinBox(page);
    m_idleMinutes->setObjectName(QStringLiteral("defaultIdleMinutes"));
    m_idleMinutes->setAccessibleName(tr("Default idle minutes before expiry"));
    m_idleMinutes->setRange(WorkbenchSettings::MinIdleMinutes, WorkbenchSettings::MaxIdleMinutes);
    m_idleMinutes->setSuffix(tr(" min"));
    m_idleMinutes->setValue(WorkbenchSettings::defaultIdleMinutes());

    m_theme = new QComboBox(page);
    m_theme->setObjectName(QStringLiteral("theme"));
    m_theme->setAccessibleName(tr("Theme"));
    m_theme->addItem(tr("Follow the system"), Appearance::themeKey(Theme::System));
    m_theme->addItem(tr("Light"), Appearance::themeKey(Theme::Light));
    m_theme->addItem(tr("Dark"), Appearance::themeKey(Theme::Dark));
    m_theme->setCurrentIndex(m_theme->findData(Appearance::themeKey(WorkbenchSettings::theme())));

    auto *hint = new QLabel(tr("New containers start with these values; the New Container dialog can change "
                               "them for each one. Containers that exist keep theirs."),
                            page);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);

    auto *form = new QFormLayout(page);
    form->addRow(tr("Default &memory limit:"), m_memory);
    form->addRow(tr("Default &idle time before expiry:"), m_idleMinutes);
    form->addRow(QString(), hint);
    form->addRow(tr("&Theme:"), m_theme);
    return page;
}

QWidget *SettingsDialog::buildNetworkPage()
{
    auto *page = new QWidget(this);
    auto *label =
        new QLabel(tr("The organisation allowlist is the outer bound of every container's network: a "
                      "container's own list may only narrow it. Changes apply to running containers "
                      "at once when saved."),
                   page);
    label->setWordWrap(true);
    m_orgEditor = new OrgAllowlistEditor(m_connection, page);
    m_orgEditor->setObjectName(QStringLiteral("orgAllowlistEditor"));
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(label);
    layout->addWidget(m_orgEditor, 1);
    return page;
}

QWidget *SettingsDialog::buildDataPage()
{
    auto *page = new QWidget(this);
    m_dataLocation = new QLabel(tr("Asking the daemon…"), page);
    m_dataLocation->setObjectName(QStringLiteral("dataLocation"));
    m_dataLocation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_dataLocation->setWordWrap(true);
    m_openData = new QPushButton(tr("&Open Folder"), page);
    m_openData->setEnabled(false);
    connect(m_openData, &QPushButton::clicked, this,
            [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(m_dataDir)); });
    auto *where =
        new QLabel(tr("cordond keeps its history database and the containers' workspaces here. To use "
                      "another place, start cordond with <code>CORDON_DATA_DIR</code> set."),
                   page);
    where->setWordWrap(true);
    where->setForegroundRole(QPalette::PlaceholderText);

    m_purgeDays = new QSpinBox(page);
    m_purgeDays->setObjectName(QStringLiteral("purgeDays"));
    m_purgeDays->setAccessibleName(tr("Delete history older than this many days"));
    m_purgeDays->setRange(0, 3650);
    m_purgeDays->setValue(30);
    m_purgeDays->setSuffix(tr(" days"));
    m_purge = new QPushButton(tr("&Delete Older History…"), page);
    m_purge->setObjectName(QStringLiteral("purgeHistory"));
    connect(m_purge, &QPushButton::clicked, this, &SettingsDialog::purgeHistory);
    m_purgeMessage = new QLabel(page);
    m_purgeMessage->setObjectName(QStringLiteral("purgeMessage"));
    m_purgeMessage->setWordWrap(true);

    auto *locationRow = new QHBoxLayout;
    locationRow->addWidget(m_dataLocation, 1);
    locationRow->addWidget(m_openData);
    auto *purgeRow = new QHBoxLayout;
    purgeRow->addWidget(new QLabel(tr("Runs and events older than"), page));
    purgeRow->addWidget(m_purgeDays);
    purgeRow->addWidget(m_purge);
    purgeRow->addStretch(1);
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(new QLabel(tr("<b>Data location</b>"), page));
    layout->addLayout(locationRow);
    layout->addWidget(where);
    layout->addSpacing(12);
    layout->addWidget(new QLabel(tr("<b>History</b>"), page));
    layout->addLayout(purgeRow);
    layout->addWidget(m_purgeMessage);
    layout->addStretch(1);
    return page;
}

void SettingsDialog::loadDataLocation()
{
    m_connection.call(QStringLiteral("daemon.status"), {}, this, [this](Result<QJsonObject> result) {
        if (!result) {
            m_dataLocation->setText(tr("Not known: %1").arg(toQt(result.error().describe())));
            return;
        }
        m_dataDir = result->value(QStringLiteral("data_dir")).toString();
        m_dataLocation->setText(m_dataDir.isEmpty() ? tr("Not reported by this daemon") : m_dataDir);
        m_openData->setEnabled(!m_dataDir.isEmpty());
    });
}

QString SettingsDialog::purgeMessage() const
{
    return m_purgeMessage->text();
}

void SettingsDialog::purgeHistory()
{
    const int days = m_purgeDays->value();
    auto *box = new QMessageBox(QMessageBox::Question, tr("Delete Older History"),
                                days == 0 ? tr("Delete the whole history?")
                                          : tr("Delete the history older than %n day(s)?", nullptr, days),
                                QMessageBox::Cancel, this);
    box->setInformativeText(tr("Runs with their code and output, events and file records of that time are "
                               "deleted from the database. Containers that still exist are not touched."));
    QPushButton *confirm = box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setObjectName(QStringLiteral("purgeConfirmation"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, confirm, days] {
        if (box->clickedButton() != confirm)
            return;
        m_purge->setEnabled(false);
        m_purgeMessage->setText(tr("Deleting…"));
        m_connection.call(
            QStringLiteral("history.purge"), {{QStringLiteral("older_than_days"), days}}, this,
            [this](Result<QJsonObject> result) {
                m_purge->setEnabled(true);
                if (!result) {
                    m_purgeMessage->setText(tr("Nothing deleted: %1").arg(toQt(result.error().describe())));
                    return;
                }
                m_purgeMessage->setText(tr("Deleted %1 runs, %2 events and %3 file records.")
                                            .arg(result->value(QStringLiteral("runs")).toInteger())
                                            .arg(result->value(QStringLiteral("events")).toInteger())
                                            .arg(result->value(QStringLiteral("files")).toInteger()));
            });
    });
    box->open();
}

void SettingsDialog::accept()
{
    // OK means everything on the pages, the allowlist too: save it first and close once the daemon agreed.
    if (m_orgEditor->isModified()) {
        if (!m_orgEditor->canSave()) {
            m_tabs->setCurrentIndex(m_tabs->indexOf(m_orgEditor->parentWidget()));
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Preferences"),
                                        tr("The organisation allowlist has entries that cannot be saved."),
                                        QMessageBox::Ok, this);
            box->setInformativeText(tr("Correct or remove the entries marked in red, or revert the list."));
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
            return;
        }
        connect(
            m_orgEditor, &OrgAllowlistEditor::saved, this,
            [this](bool ok) {
                if (ok)
                    accept();
                else
                    m_tabs->setCurrentIndex(m_tabs->indexOf(m_orgEditor->parentWidget()));
            },
            Qt::SingleShotConnection);
        m_orgEditor->save();
        return;
    }
    WorkbenchSettings::setDefaultMemoryGib(m_memory->currentData().toInt());
    WorkbenchSettings::setDefaultIdleMinutes(m_idleMinutes->value());
    const Theme theme = Appearance::themeFromKey(m_theme->currentData().toString());
    WorkbenchSettings::setTheme(theme);
    Appearance::apply(theme, Appearance::presentation());
    QDialog::accept();
}

} // namespace Cordon::Ui
