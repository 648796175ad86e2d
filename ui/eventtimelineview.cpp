// SPDX-License-Identifier: MIT
#include "eventtimelineview.h"

#include "daemonconnection.h"
#include "eventtimelinemodel.h"
#include "pagedfooter.h"
#include "pagedquery.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace Cordon::Ui {

EventTimelineView::EventTimelineView(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_model(new EventTimelineModel(this)),
      m_query(new PagedQuery(connection, m_model, QStringLiteral("history.events"), QStringLiteral("events"),
                             this)),
      m_kind(new QComboBox(this)), m_view(new QTreeView(this))
{
    m_kind->setObjectName(QStringLiteral("timelineKindFilter"));
    m_kind->setAccessibleName(tr("Event kind filter"));
    m_kind->addItem(tr("All events"), QString());
    m_kind->addItem(tr("Containers: created, started, stopped, expired, deleted"),
                    QStringLiteral("container."));
    m_kind->addItem(tr("Runs"), QStringLiteral("run."));
    m_kind->addItem(tr("Files in and out"), QStringLiteral("file."));
    m_kind->addItem(tr("Network: every decision"), QStringLiteral("network."));
    m_kind->addItem(tr("Network: denied only"), QStringLiteral("network.denied"));
    m_kind->addItem(tr("Daemon"), QStringLiteral("daemon."));
    auto *kindLabel = new QLabel(tr("&Kind:"), this);
    kindLabel->setBuddy(m_kind);
    connect(m_kind, &QComboBox::currentIndexChanged, m_query, &PagedQuery::refilter);

    m_model->setObjectName(QStringLiteral("timelineModel"));
    m_view->setObjectName(QStringLiteral("timelineList"));
    m_view->setAccessibleName(tr("Event timeline"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAllColumnsShowFocus(true);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(EventTimelineModel::DescriptionColumn, QHeaderView::Stretch);

    m_footer = new PagedFooter(
        *m_query, *m_model,
        [](int shown, qint64 total) {
            return tr("Showing %1 of %n event(s)", nullptr, int(qMin<qint64>(total, INT_MAX))).arg(shown);
        },
        [this] {
            return m_kind->currentData().toString().isEmpty() ? tr("No events recorded yet.")
                                                              : tr("No events of this kind.");
        },
        this);
    m_footer->setObjectName(QStringLiteral("timelineFooter"));
    m_footer->loadMoreButton()->setObjectName(QStringLiteral("timelineLoadMore"));

    m_query->setParameters([this] {
        QJsonObject params;
        const QString kind = m_kind->currentData().toString();
        if (!kind.isEmpty())
            params.insert(QStringLiteral("kind"), kind);
        if (!m_container.isEmpty())
            params.insert(QStringLiteral("container"), m_container);
        if (!m_origin.isEmpty())
            params.insert(QStringLiteral("origin"), m_origin);
        else if (m_includeAudits)
            params.insert(QStringLiteral("audits"), true);
        return params;
    });
    connect(m_query, &PagedQuery::loaded, this, &EventTimelineView::pageLoaded);
    // The history dock shows the read error once, above its tabs; here the list just stays as it was.
    connect(&connection, &DaemonConnection::eventReceived, this, [this](const QString &name) {
        if (name == QLatin1String("event"))
            m_query->markStale();
    });

    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(kindLabel);
    filterRow->addWidget(m_kind, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(filterRow);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_footer);
}

QString EventTimelineView::footerText() const
{
    return m_footer->text();
}

void EventTimelineView::setKindFilter(const QString &kind)
{
    const int index = m_kind->findData(kind);
    if (index >= 0)
        m_kind->setCurrentIndex(index);
}

void EventTimelineView::setContainerFilter(const QString &containerId)
{
    if (containerId == m_container)
        return;
    m_container = containerId;
    m_query->refilter();
}

void EventTimelineView::setOriginFilter(bool includeAudits, const QString &origin)
{
    if (includeAudits == m_includeAudits && origin == m_origin)
        return;
    m_includeAudits = includeAudits;
    m_origin = origin;
    m_query->refilter();
}

} // namespace Cordon::Ui
