// SPDX-License-Identifier: MIT
#include "inspectdialog.h"

#include "allowlistmodel.h"
#include "core/formatting.h"
#include "core/policywords.h"
#include "daemonconnection.h"
#include "dialogfit.h"
#include "paletteicon.h"
#include "policyview.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

QJsonObject networkPolicyOf(const QJsonObject &container)
{
    return container.value(QStringLiteral("policy"))
        .toObject()
        .value(QStringLiteral("network_policy"))
        .toObject();
}

QJsonArray rulesOf(const QJsonObject &container)
{
    return networkPolicyOf(container).value(QStringLiteral("allowed_domains")).toArray();
}

bool isAllowlist(const QJsonObject &container)
{
    return networkPolicyOf(container).value(QStringLiteral("type")).toString() == QLatin1String("allowlist");
}

} // namespace

InspectDialog::InspectDialog(DaemonConnection &connection, const QJsonObject &container, QWidget *parent)
    : QDialog(parent), m_connection(connection), m_header(new QLabel(this)),
      m_allowlistTitle(new QLabel(this)), m_allowlist(new QTreeWidget(this)), m_policy(new PolicyView(this))
{
    setObjectName(QStringLiteral("inspectDialog"));
    m_header->setObjectName(QStringLiteral("inspectHeader"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_header->setWordWrap(true);
    QFont titleFont = m_allowlistTitle->font();
    titleFont.setBold(true);
    m_allowlistTitle->setFont(titleFont);
    m_allowlistTitle->setText(tr("Effective allowlist: the container's rules, within the organisation's"));
    m_allowlist->setObjectName(QStringLiteral("inspectAllowlist"));
    m_allowlist->setAccessibleName(tr("Effective allowlist"));
    m_allowlist->setHeaderLabels({tr("Rule"), tr("In force")});
    m_allowlist->setRootIsDecorated(false);
    m_allowlist->setWordWrap(true);
    m_allowlist->setSelectionMode(QAbstractItemView::NoSelection);
    m_allowlist->header()->setStretchLastSection(false);
    m_allowlist->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_allowlist->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_allowlist->setMaximumHeight(150);
    auto *policyTitle = new QLabel(tr("Policy"), this);
    policyTitle->setFont(titleFont);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout;
    layout->addWidget(m_header);
    layout->addWidget(m_allowlistTitle);
    layout->addWidget(m_allowlist);
    layout->addWidget(policyTitle);
    layout->addWidget(m_policy, 1);
    DialogFit::install(this, layout, buttons, QSize(760, 640));
    update(container);
}

QString InspectDialog::containerId() const
{
    return m_container.value(QStringLiteral("id")).toString();
}

void InspectDialog::update(const QJsonObject &container)
{
    if (!m_container.isEmpty() &&
        container.value(QStringLiteral("id")) != m_container.value(QStringLiteral("id")))
        return;
    const bool policyChanged = container.value(QStringLiteral("policy_version")) !=
                               m_container.value(QStringLiteral("policy_version"));
    m_container = container;
    setWindowTitle(
        tr("Inspect “%1”").arg(Format::displayName(container.value(QStringLiteral("name")).toString())));
    showHeader();
    if (policyChanged) {
        m_policy->setPolicy(container.value(QStringLiteral("policy")).toObject(),
                            container.value(QStringLiteral("policy_version")).toString());
        checkAllowlist();
    }
}

void InspectDialog::showHeader()
{
    const QJsonObject &c = m_container;
    const QString state = c.value(QStringLiteral("state")).toString();
    QStringList rows;
    auto row = [&rows](const QString &label, const QString &value) {
        rows.append(QStringLiteral("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                        .arg(label.toHtmlEscaped(), value.toHtmlEscaped()));
    };
    row(tr("ID"), c.value(QStringLiteral("id")).toString());
    row(tr("Name"), Format::displayName(c.value(QStringLiteral("name")).toString()));
    row(tr("State"), state);
    row(tr("Created"), Format::dateTime(c.value(QStringLiteral("created_at")).toInteger()));
    row(tr("Last active"), Format::dateTime(c.value(QStringLiteral("last_active_at")).toInteger()));
    if (state == QLatin1String("running") || state == QLatin1String("stopped")) {
        row(tr("Expires"), Format::dateTime(c.value(QStringLiteral("expires_at")).toInteger()));
        if (c.contains(QStringLiteral("workspace_bytes")))
            row(tr("Files"), tr("%1 in /mnt/data, counted in its %2 memory limit")
                                 .arg(Format::bytes(c.value(QStringLiteral("workspace_bytes")).toInteger()),
                                      Format::bytes(c.value(QStringLiteral("memory_limit")).toInteger())));
        row(tr("Kept"), tr("through a crash or restart of the daemon; checkpointed to disk a minute after "
                           "activity, so a power loss loses at most the last minute of changes"));
    } else {
        row(state == QLatin1String("expired") ? tr("Expired") : tr("Deleted"),
            tr("%1; its files were deleted")
                .arg(Format::dateTime(c.value(QStringLiteral("ended_at")).toInteger())));
    }
    const double scale = c.value(QStringLiteral("time_scale")).toDouble(1);
    if (scale > 1)
        row(tr("Idle clock"), tr("runs %1× faster (demo)").arg(scale));
    if (!c.value(QStringLiteral("limits_enforced")).toBool(true))
        row(tr("Limits"), tr("not enforced: the daemon runs without cgroups (degraded mode)"));
    m_header->setText(QStringLiteral("<table>%1</table>").arg(rows.join(QString())));
}

void InspectDialog::checkAllowlist()
{
    m_allowlist->clear();
    const bool allowlist = isAllowlist(m_container);
    m_allowlistTitle->setVisible(allowlist);
    m_allowlist->setVisible(allowlist);
    if (!allowlist) {
        Q_EMIT allowlistChecked();
        return;
    }
    const QJsonArray rules = rulesOf(m_container);
    if (rules.isEmpty()) {
        new QTreeWidgetItem(m_allowlist, {tr("No rules: the egress proxy refuses every request"), QString()});
        Q_EMIT allowlistChecked();
        return;
    }
    for (const QJsonValue &rule : rules)
        new QTreeWidgetItem(m_allowlist, {PolicyWords::rule(rule.toObject()), tr("checking…")});
    // The organisation list may have been narrowed since the container was created: the proxy then refuses
    // what it no longer covers, so "in force" is the daemon's answer now, not what creation once accepted.
    const QString id = containerId();
    m_connection.call(QStringLiteral("network.check"), {{QStringLiteral("allowed_domains"), rules}}, this,
                      [this, id, rules](Result<QJsonObject> result) {
                          if (id != containerId() || rulesOf(m_container) != rules)
                              return;
                          const QJsonArray answers =
                              result ? result->value(QStringLiteral("entries")).toArray() : QJsonArray();
                          const QColor outside = AllowlistModel::outsideColour(QGuiApplication::palette());
                          for (int row = 0; row < m_allowlist->topLevelItemCount(); ++row) {
                              QTreeWidgetItem *item = m_allowlist->topLevelItem(row);
                              const QJsonObject answer = answers.at(row).toObject();
                              const QJsonObject refusal =
                                  answer.value(QStringLiteral("outside_organisation")).toObject();
                              if (!result) {
                                  item->setText(1, tr("unknown: %1").arg(toQt(result.error().message())));
                              } else if (!refusal.isEmpty()) {
                                  item->setText(1, tr("no: outside the organisation allowlist now"));
                                  item->setToolTip(0, refusal.value(QStringLiteral("message")).toString());
                                  item->setForeground(0, outside);
                                  item->setForeground(1, outside);
                                  item->setIcon(1, paletteIcon(QStringLiteral("outcome-failed"), outside));
                              } else {
                                  item->setText(1, tr("yes"));
                                  item->setIcon(1, paletteIcon(QStringLiteral("outcome-ok")));
                                  item->setToolTip(0, PolicyWords::ruleCaveat(rules.at(row).toObject()));
                              }
                          }
                          Q_EMIT allowlistChecked();
                      });
}

QString InspectDialog::headerText() const
{
    QString html = m_header->text();
    html.replace(QStringLiteral("</tr>"), QStringLiteral("\n"));
    html.replace(QStringLiteral("&nbsp;&nbsp;</td><td>"), QStringLiteral(": "));
    html.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return html.trimmed();
}

QStringList InspectDialog::allowlistRows() const
{
    QStringList rows;
    for (int row = 0; row < m_allowlist->topLevelItemCount(); ++row)
        rows.append(m_allowlist->topLevelItem(row)->text(0) + QStringLiteral(" — ") +
                    m_allowlist->topLevelItem(row)->text(1));
    return rows;
}

} // namespace Cordon::Ui
