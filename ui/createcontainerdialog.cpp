// SPDX-License-Identifier: MIT
#include "createcontainerdialog.h"

#include "allowlisteditor.h"
#include "allowlistmodel.h"
#include "core/formatting.h"
#include "daemonconnection.h"
#include "dialogfit.h"
#include "messagetone.h"
#include "workbenchsettings.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QJsonArray>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

// The policy's own rule for names (docs/policy.md), checked here so the user hears it while typing.
const QRegularExpression NamePattern(QStringLiteral("^[A-Za-z0-9._-]{1,64}$"));
constexpr int MaxNameLength = 64;

QSpinBox *spinBox(QWidget *parent, int min, int max, int value, const QString &suffix)
{
    auto *box = new QSpinBox(parent);
    box->setRange(min, max);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setAlignment(Qt::AlignRight);
    box->setMinimumWidth(120);
    return box;
}

QLabel *hint(const QString &text)
{
    auto *label = new QLabel(text);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    QFont small = label->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    label->setFont(small);
    return label;
}

} // namespace

CreateContainerDialog::CreateContainerDialog(DaemonConnection &connection, QWidget *parent)
    : QDialog(parent), m_connection(connection), m_name(new QLineEdit(this)), m_nameError(new QLabel(this)),
      m_memory(new QComboBox(this)),
      m_idleMinutes(spinBox(this, WorkbenchSettings::MinIdleMinutes, WorkbenchSettings::MaxIdleMinutes,
                            WorkbenchSettings::defaultIdleMinutes(), tr(" min"))),
      m_secrets(new QListWidget(this)), m_secretsNote(new QLabel(this)),
      m_networkOff(new QRadioButton(tr("O&ff — only loopback inside the container"), this)),
      m_networkAllowlist(new QRadioButton(tr("A&llowlist — chosen hosts through the egress proxy"), this)),
      m_allowlist(new AllowlistEditor(connection, AllowlistEditor::Mode::Container, this)),
      m_networkNote(new QLabel(this)), m_advancedToggle(new QToolButton(this)),
      m_advanced(new QGroupBox(this)), m_runTimeout(spinBox(this, 1, 86400, 300, tr(" s"))),
      m_pids(spinBox(this, 1, 65536, 256, QString())), m_tmpMb(spinBox(this, 0, 65536, 0, tr(" MiB"))),
      m_workspaceMb(spinBox(this, 0, 1048576, 0, tr(" MiB"))),
      m_outputMb(spinBox(this, 1, 4096, 16, tr(" MiB"))), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("New Container"));
    setAccessibleName(tr("New container"));

    m_name->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[A-Za-z0-9._-]{0,64}")), m_name));
    m_name->setAccessibleName(tr("Container name"));
    // Empty is allowed: the daemon then chooses a readable name that no other container has.
    m_name->setPlaceholderText(tr("chosen for you, e.g. brisk-heron"));
    m_name->setToolTip(tr("Up to 64 letters, digits, dots, underscores and hyphens, unique among your "
                          "containers. Leave it empty and the daemon picks one."));
    m_name->setObjectName(QStringLiteral("createName"));
    // The validator drops what a name cannot hold without a word; the note under the field gives one.
    m_name->installEventFilter(this);
    connect(m_name, &QLineEdit::inputRejected, this, &CreateContainerDialog::explainRejectedInput);
    m_nameError->setObjectName(QStringLiteral("createNameNote"));
    m_nameError->setVisible(false);
    m_nameError->setWordWrap(true);
    QPalette errorPalette = m_nameError->palette();
    errorPalette.setColor(QPalette::WindowText, toneColours(Tone::Failure, errorPalette).accent);
    m_nameError->setPalette(errorPalette);

    for (int gib : WorkbenchSettings::memoryTiers())
        m_memory->addItem(tr("%1 GiB").arg(gib), QStringLiteral("%1g").arg(gib));
    // The defaults from Settings.
    m_memory->setCurrentIndex(
        m_memory->findData(QStringLiteral("%1g").arg(WorkbenchSettings::defaultMemoryGib())));
    m_memory->setAccessibleName(tr("Memory limit"));
    m_memory->setToolTip(tr("The container's memory limit. A run that needs more is stopped by the kernel's "
                            "OOM killer."));
    m_idleMinutes->setAccessibleName(tr("Idle minutes before expiry"));
    m_idleMinutes->setToolTip(
        tr("After this long without activity the container is deleted with its files."));

    m_secrets->setObjectName(QStringLiteral("createSecrets"));
    m_secrets->setAccessibleName(tr("Secrets the runs receive"));
    m_secrets->setToolTip(tr("Each checked secret reaches every run as an environment variable of its name; "
                             "its value is masked in all output. Edit › Secrets… adds and changes them."));
    m_secrets->setMaximumHeight(90);
    m_secrets->setVisible(false);
    m_secretsNote->setObjectName(QStringLiteral("createSecretsNote"));
    m_secretsNote->setWordWrap(true);
    m_secretsNote->setForegroundRole(QPalette::PlaceholderText);
    m_secretsNote->setText(tr("None in the store: Edit › Secrets… adds one."));
    loadSecrets();

    m_networkOff->setObjectName(QStringLiteral("networkOffButton"));
    m_networkOff->setAccessibleName(tr("Network off"));
    m_networkOff->setChecked(true);
    m_networkAllowlist->setObjectName(QStringLiteral("networkAllowlistButton"));
    m_networkAllowlist->setAccessibleName(tr("Network allowlist"));
    m_networkAllowlist->setToolTip(
        tr("Programs reach only the listed hosts, through the daemon's egress proxy; "
           "every host must be in the organisation allowlist."));
    m_allowlist->setObjectName(QStringLiteral("createAllowlistEditor"));
    m_allowlist->view()->setMinimumHeight(110);
    m_allowlist->setVisible(false);
    m_networkNote->setObjectName(QStringLiteral("createNetworkNote"));
    m_networkNote->setTextFormat(Qt::PlainText);
    m_networkNote->setWordWrap(true);
    m_networkNote->setForegroundRole(QPalette::PlaceholderText);
    m_networkNote->setVisible(false);
    connect(m_networkAllowlist, &QRadioButton::toggled, this, [this](bool allowlist) {
        m_allowlist->setVisible(allowlist);
        m_networkNote->setVisible(allowlist);
        if (allowlist)
            showOrganisation();
        validate();
    });
    connect(m_allowlist, &AllowlistEditor::validityChanged, this, &CreateContainerDialog::validate);

    m_advancedToggle->setText(tr("Advanced limits"));
    m_advancedToggle->setCheckable(true);
    m_advancedToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_advancedToggle->setArrowType(Qt::RightArrow);
    m_advancedToggle->setAutoRaise(true);
    m_advancedToggle->setAccessibleName(tr("Show advanced limits"));
    connect(m_advancedToggle, &QToolButton::toggled, this, [this](bool shown) {
        m_advanced->setVisible(shown);
        m_advancedToggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    });
    m_runTimeout->setAccessibleName(tr("Run time limit in seconds"));
    m_pids->setAccessibleName(tr("Process limit"));
    m_tmpMb->setAccessibleName(tr("Size of /tmp in MiB"));
    m_workspaceMb->setAccessibleName(tr("Workspace size in MiB"));
    // Left at 0 the daemon sizes them from the memory tier (docs/policy.md), so that files fill up with
    // "No space left on device" before they fill the memory.
    m_tmpMb->setSpecialValueText(tr("Default (¼ of memory)"));
    m_workspaceMb->setSpecialValueText(tr("Default (½ of memory)"));
    m_workspaceMb->setToolTip(
        tr("Files count toward the memory limit. The default leaves half of it to the "
           "programs (at most 2048 MiB), so that a full workspace ends a write with \"No space left on "
           "device\" instead of the memory limit killing the writer."));
    m_outputMb->setAccessibleName(tr("Output captured per run in MiB"));
    auto *advancedForm = new QFormLayout(m_advanced);
    advancedForm->addRow(tr("Time limit per &run:"), m_runTimeout);
    advancedForm->addRow(tr("&Processes:"), m_pids);
    advancedForm->addRow(tr("/&tmp size:"), m_tmpMb);
    advancedForm->addRow(tr("&Workspace size:"), m_workspaceMb);
    advancedForm->addRow(tr("&Output per run:"), m_outputMb);
    m_advanced->setVisible(false);

    m_progress->setRange(0, 0);
    m_progress->setTextVisible(false);
    m_progress->setFixedHeight(6);
    m_progress->setVisible(false);
    m_status->setWordWrap(true);
    m_status->setVisible(false);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("C&reate"));
    // Some styles put stock icons on dialog buttons; the words say enough.
    m_buttons->button(QDialogButtonBox::Ok)->setIcon(QIcon());
    m_buttons->button(QDialogButtonBox::Cancel)->setIcon(QIcon());
    connect(m_buttons, &QDialogButtonBox::accepted, this, &CreateContainerDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &CreateContainerDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &CreateContainerDialog::validate);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(QString(), m_nameError);
    form->addRow(tr("&Memory:"), m_memory);
    form->addRow(QString(), hint(tr("A run that needs more is stopped by the kernel.")));
    form->addRow(tr("&Idle expiry:"), m_idleMinutes);
    form->addRow(QString(), hint(tr("Deleted with its files after this long without activity.")));
    form->addRow(tr("&Secrets:"), m_secrets);
    form->addRow(QString(), m_secretsNote);
    auto *networkChoice = new QVBoxLayout;
    networkChoice->addWidget(m_networkOff);
    networkChoice->addWidget(m_networkAllowlist);
    form->addRow(tr("Network:"), networkChoice);

    auto *heading = new QLabel(tr("Create a container"), this);
    QFont headingFont = heading->font();
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.25);
    headingFont.setWeight(QFont::DemiBold);
    heading->setFont(headingFont);
    auto *intro =
        new QLabel(tr("It starts at once, runs code in isolation, and keeps its files between runs until "
                      "it is deleted or expires."),
                   this);
    intro->setWordWrap(true);

    auto *layout = new QVBoxLayout;
    layout->setContentsMargins(18, 16, 18, 14);
    layout->addWidget(heading);
    layout->addWidget(intro);
    layout->addSpacing(8);
    layout->addLayout(form);
    layout->addWidget(m_allowlist);
    layout->addWidget(m_networkNote);
    layout->addWidget(m_advancedToggle, 0, Qt::AlignLeft);
    layout->addWidget(m_advanced);
    layout->addStretch(1);
    // The busy bar and the daemon's refusal stay in sight with the buttons when the form scrolls.
    auto *footer = new QWidget(this);
    auto *footerLayout = new QVBoxLayout(footer);
    footerLayout->setContentsMargins(0, 0, 0, 0);
    footerLayout->addWidget(m_progress);
    footerLayout->addWidget(m_status);
    footerLayout->addWidget(m_buttons);
    // It grows with the allowlist and the advanced limits: DialogFit follows, within the screen.
    DialogFit::install(this, layout, footer, QSize(480, 0));
    m_memory->setMinimumWidth(140);
    m_name->selectAll();
    validate();
}

void CreateContainerDialog::setName(const QString &name)
{
    m_name->setText(name);
}

void CreateContainerDialog::setTakenNames(const QStringList &names)
{
    m_takenNames = names;
    validate();
}

QJsonObject CreateContainerDialog::policy() const
{
    QJsonObject described{
        {QStringLiteral("memory_limit"), m_memory->currentData().toString()},
        {QStringLiteral("expires_after"),
         QJsonObject{{QStringLiteral("anchor"), QStringLiteral("last_active_at")},
                     {QStringLiteral("minutes"), m_idleMinutes->value()}}},
        {QStringLiteral("network_policy"),
         m_networkAllowlist->isChecked()
             ? QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                           {QStringLiteral("allowed_domains"), m_allowlist->entries()}}
             : QJsonObject{{QStringLiteral("type"), QStringLiteral("disabled")}}},
    };
    QJsonObject limits{{QStringLiteral("run_timeout_s"), m_runTimeout->value()},
                       {QStringLiteral("pids"), m_pids->value()},
                       {QStringLiteral("output_mb"), m_outputMb->value()}};
    if (m_tmpMb->value() > 0)
        limits.insert(QStringLiteral("tmp_mb"), m_tmpMb->value());
    if (m_workspaceMb->value() > 0)
        limits.insert(QStringLiteral("workspace_mb"), m_workspaceMb->value());
    described.insert(QStringLiteral("limits"), limits);
    if (!m_name->text().isEmpty())
        described.insert(QStringLiteral("name"), m_name->text());
    QJsonArray secrets;
    for (int row = 0; row < m_secrets->count(); ++row) {
        if (m_secrets->item(row)->checkState() == Qt::Checked)
            secrets.append(QJsonObject{{QStringLiteral("name"), m_secrets->item(row)->text()}});
    }
    if (!secrets.isEmpty())
        described.insert(QStringLiteral("secrets"), secrets);
    return described;
}

void CreateContainerDialog::loadSecrets()
{
    m_connection.call(QStringLiteral("secret.list"), {}, this, [this](Result<QJsonObject> result) {
        if (!result)
            return; // the store cannot be read: the note stays, and Create works without secrets
        m_secrets->clear();
        for (const QJsonValue &secret : result->value(QStringLiteral("secrets")).toArray()) {
            auto *item =
                new QListWidgetItem(secret.toObject().value(QStringLiteral("name")).toString(), m_secrets);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
        }
        m_secrets->setVisible(m_secrets->count() > 0);
        m_secretsNote->setVisible(m_secrets->count() == 0);
    });
}

void CreateContainerDialog::validate()
{
    const QString name = m_name->text();
    QString problem;
    // Empty is fine: the daemon names the container.
    if (m_takenNames.contains(name))
        problem =
            tr("A container named “%1” exists already: choose another name, or leave it empty.").arg(name);
    else if (name == QLatin1String(".") || name == QLatin1String(".."))
        problem = tr("“.” and “..” cannot be names.");
    else if (!name.isEmpty() && !NamePattern.match(name).hasMatch())
        problem = tr("Use up to 64 letters, digits, dots, underscores and hyphens.");
    if (name.isEmpty())
        m_rejectedNote.clear();
    // A problem with the name first; else why the last thing typed was left out, until the field is empty.
    const QString note = problem.isEmpty() ? m_rejectedNote : problem;
    m_nameError->setText(note);
    m_nameError->setVisible(!note.isEmpty());
    // The daemon checks the list as it is edited; Create waits for its answer and for every entry to pass.
    const bool networkReady = !m_networkAllowlist->isChecked() || m_allowlist->isAcceptable();
    QPushButton *create = m_buttons->button(QDialogButtonBox::Ok);
    create->setEnabled(problem.isEmpty() && networkReady && !m_busy);
    create->setToolTip(networkReady ? QString() : m_allowlist->problemSummary());
}

void CreateContainerDialog::explainRejectedInput()
{
    if (m_name->text().size() >= MaxNameLength && !m_name->hasSelectedText())
        m_rejectedNote = tr("A name has at most %1 characters: the rest was left out.").arg(MaxNameLength);
    else if (m_lastTyped == QLatin1String(" "))
        m_rejectedNote = tr("A space cannot be in a name and was left out: use a hyphen or an underscore.");
    else if (!m_lastTyped.isEmpty())
        m_rejectedNote = tr("“%1” cannot be in a name and was left out: use letters A–Z and a–z, digits, "
                            "dots, underscores and hyphens.")
                             .arg(Format::displayName(m_lastTyped));
    else
        m_rejectedNote = tr("Not pasted: a name takes only letters A–Z and a–z, digits, dots, underscores "
                            "and hyphens, up to %1 characters.")
                             .arg(MaxNameLength);
    // The field still holds the refused text while it says so; it is put back right after.
    QMetaObject::invokeMethod(this, &CreateContainerDialog::validate, Qt::QueuedConnection);
}

bool CreateContainerDialog::eventFilter(QObject *watched, QEvent *event)
{
    // What was typed last, for the note when the validator drops it; a paste types nothing.
    if (watched == m_name && event->type() == QEvent::KeyPress) {
        const QString text = static_cast<QKeyEvent *>(event)->text();
        m_lastTyped = !text.isEmpty() && text.at(0).unicode() >= 0x20 && text.at(0).unicode() != 0x7f
                          ? text
                          : QString();
    }
    return QDialog::eventFilter(watched, event);
}

bool CreateContainerDialog::canCreate() const
{
    return m_buttons->button(QDialogButtonBox::Ok)->isEnabled();
}

void CreateContainerDialog::setAllowlistChosen(bool allowlist)
{
    (allowlist ? m_networkAllowlist : m_networkOff)->setChecked(true);
}

void CreateContainerDialog::showOrganisation()
{
    m_networkNote->setText(
        tr("Every host must be in the organisation allowlist; entries outside it are marked."));
    m_connection.call(QStringLiteral("network.org_policy"), {}, this, [this](Result<QJsonObject> result) {
        if (!result)
            return;
        constexpr qsizetype MaxShown = 12;
        const QJsonArray rules = result->value(QStringLiteral("allowed_domains")).toArray();
        QStringList hosts;
        for (qsizetype i = 0; i < rules.size() && i < MaxShown; ++i)
            hosts.append(AllowlistModel::displayText(rules.at(i)));
        if (rules.size() > MaxShown)
            hosts.append(tr("and %n more", nullptr, int(rules.size() - MaxShown)));
        m_networkNote->setText(
            hosts.isEmpty()
                ? tr("The organisation allowlist is empty, so no host can be allowed yet: add hosts to it in "
                     "the "
                     "Network tab or in Edit › Preferences (%1).")
                      .arg(result->value(QStringLiteral("path")).toString())
                : tr("The organisation allowlist permits: %1. Entries outside it are marked and refused.")
                      .arg(hosts.join(QStringLiteral(", "))));
    });
}

void CreateContainerDialog::setBusy(bool busy)
{
    m_busy = busy;
    for (QWidget *field :
         std::initializer_list<QWidget *>{m_name, m_memory, m_idleMinutes, m_networkOff, m_networkAllowlist,
                                          m_allowlist, m_advanced, m_advancedToggle})
        field->setEnabled(!busy);
    m_progress->setVisible(busy);
    if (busy) {
        m_status->setText(tr("Starting the container…"));
        m_status->setVisible(true);
        m_status->setPalette(palette());
    }
    validate();
}

void CreateContainerDialog::showError(const QString &text)
{
    QPalette errorPalette = palette();
    errorPalette.setColor(QPalette::WindowText, toneColours(Tone::Failure, errorPalette).accent);
    m_status->setPalette(errorPalette);
    m_status->setText(text);
    m_status->setVisible(true);
}

void CreateContainerDialog::accept()
{
    if (m_busy)
        return;
    validate();
    if (!m_buttons->button(QDialogButtonBox::Ok)->isEnabled())
        return;
    setBusy(true);
    m_connection.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policy()}}, this,
                      [this](Result<QJsonObject> result) {
                          setBusy(false);
                          if (!result) {
                              const Error &error = result.error();
                              const QString hint = toQt(error.hint());
                              showError(tr("The container was not created: %1").arg(toQt(error.message())) +
                                        (hint.isEmpty() ? QString() : QStringLiteral("\n") + hint));
                              return;
                          }
                          m_created = result->value(QStringLiteral("container")).toObject();
                          QDialog::accept();
                      });
}

} // namespace Cordon::Ui
