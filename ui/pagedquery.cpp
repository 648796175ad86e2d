// SPDX-License-Identifier: MIT
#include "pagedquery.h"

#include "daemonconnection.h"
#include "pagedlistmodel.h"

#include <QEvent>
#include <QJsonArray>
#include <QWidget>

namespace Cordon::Ui {

PagedQuery::PagedQuery(DaemonConnection &connection, PagedListModel *model, QString method, QString itemsKey,
                       QWidget *view)
    : QObject(view), m_connection(connection), m_model(model), m_method(std::move(method)),
      m_itemsKey(std::move(itemsKey)), m_view(view)
{
    m_staleTimer.setSingleShot(true);
    m_staleTimer.setInterval(StaleDelayMs);
    connect(&m_staleTimer, &QTimer::timeout, this, [this] {
        if (m_stale && m_view && m_view->isVisible())
            reload();
    });
    view->installEventFilter(this);
    // (Re)connected: whatever happened meanwhile is unknown, so read again, at once if shown.
    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        if (m_connection.isConnected())
            refilter();
    });
}

bool PagedQuery::eventFilter(QObject *watched, QEvent *event)
{
    // Shown (the dock opened, the tab chosen): catch up with what happened while hidden.
    if (watched == m_view && event->type() == QEvent::Show && m_stale)
        m_staleTimer.start(0);
    return QObject::eventFilter(watched, event);
}

void PagedQuery::markStale()
{
    m_stale = true;
    if (m_view && m_view->isVisible() && !m_staleTimer.isActive())
        m_staleTimer.start();
}

void PagedQuery::refilter()
{
    if (m_view && m_view->isVisible())
        reload();
    else
        m_stale = true;
}

void PagedQuery::reload()
{
    request(false);
}

void PagedQuery::loadMore()
{
    if (m_model->canLoadMore() && !m_loading)
        request(true);
}

void PagedQuery::request(bool append)
{
    if (!m_connection.isConnected())
        return;
    m_stale = false;
    m_staleTimer.stop();
    m_loading = true;
    const quint64 generation = ++m_generation;
    QJsonObject params = m_parameters ? m_parameters() : QJsonObject();
    params.insert(QStringLiteral("limit"), m_pageSize);
    params.insert(QStringLiteral("offset"), append ? m_model->rowCount() : 0);
    Q_EMIT loadingChanged(true);
    m_connection.call(m_method, params, this, [this, generation, append](Result<QJsonObject> result) {
        if (generation != m_generation)
            return; // superseded: the filter changed meanwhile
        m_loading = false;
        if (!result) {
            Q_EMIT loadingChanged(false);
            Q_EMIT failed(toQt(result.error().message()));
            return;
        }
        const QJsonArray items = result->value(m_itemsKey).toArray();
        const qint64 total = result->value(QStringLiteral("total")).toInteger();
        if (append)
            m_model->append(items, total);
        else
            m_model->resetFrom(items, total);
        Q_EMIT loadingChanged(false);
        Q_EMIT loaded(append);
    });
}

} // namespace Cordon::Ui
