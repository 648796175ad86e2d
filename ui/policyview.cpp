// SPDX-License-Identifier: MIT
#include "policyview.h"

#include "allowlistmodel.h"
#include "core/policywords.h"
#include "paletteicon.h"

#include <QFontDatabase>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

PolicyView::PolicyView(QWidget *parent)
    : QWidget(parent), m_words(new QTreeWidget(this)), m_json(new QPlainTextEdit(this))
{
    m_words->setObjectName(QStringLiteral("policyWords"));
    m_words->setAccessibleName(tr("Policy in words"));
    m_words->setColumnCount(2);
    m_words->setHeaderLabels({tr("Setting"), tr("What it means")});
    m_words->setRootIsDecorated(false);
    m_words->setWordWrap(true);
    m_words->setUniformRowHeights(false);
    m_words->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_words->header()->setStretchLastSection(true);
    m_words->setSelectionMode(QAbstractItemView::NoSelection);
    m_json->setObjectName(QStringLiteral("policyJson"));
    m_json->setAccessibleName(tr("Policy JSON"));
    m_json->setReadOnly(true);
    m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_json->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_words);
    splitter->addWidget(m_json);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
}

void PolicyView::setPolicy(const QJsonObject &policy, const QString &version)
{
    m_words->clear();
    m_warnings = 0;
    if (policy.isEmpty()) {
        new QTreeWidgetItem(m_words, {tr("Policy"), tr("Not known yet")});
        m_json->clear();
        return;
    }
    const QColor warningColour = AllowlistModel::outsideColour(QGuiApplication::palette());
    const QJsonArray rules = policy.value(QStringLiteral("network_policy"))
                                 .toObject()
                                 .value(QStringLiteral("allowed_domains"))
                                 .toArray();
    int rule = 0;
    for (const PolicyWords::Line &line : PolicyWords::policy(policy)) {
        auto *item = new QTreeWidgetItem(m_words, {line.label, line.text});
        item->setToolTip(1, line.text);
        if (line.warning) {
            ++m_warnings;
            item->setIcon(0, paletteIcon(QStringLiteral("outcome-failed"), warningColour));
            item->setForeground(1, warningColour);
        }
        // Each rule is followed by what it reaches beyond its words, indented so it reads as part of it.
        if (line.label == PolicyWords::ruleLabel() && rule < rules.size()) {
            const QString caveat = PolicyWords::ruleCaveat(rules.at(rule++).toObject());
            if (!caveat.isEmpty()) {
                auto *note = new QTreeWidgetItem(m_words, {QString(), caveat});
                note->setToolTip(1, caveat);
                note->setForeground(1, line.warning ? warningColour
                                                    : palette().color(QPalette::PlaceholderText));
            }
        }
    }
    QString json = QString::fromUtf8(QJsonDocument(policy).toJson(QJsonDocument::Indented));
    if (!version.isEmpty())
        json.prepend(tr("// policy %1\n").arg(version));
    m_json->setPlainText(json);
}

QString PolicyView::wordsText() const
{
    QStringList lines;
    for (int row = 0; row < m_words->topLevelItemCount(); ++row) {
        const QTreeWidgetItem *item = m_words->topLevelItem(row);
        const QString label =
            item->text(0).isEmpty() ? QStringLiteral(" ") : item->text(0) + QLatin1Char(':');
        lines.append(label + QLatin1Char(' ') + item->text(1));
    }
    return lines.join(QLatin1Char('\n'));
}

QString PolicyView::jsonText() const
{
    return m_json->toPlainText();
}

int PolicyView::warningCount() const
{
    return m_warnings;
}

} // namespace Cordon::Ui
