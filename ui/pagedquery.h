// SPDX-License-Identifier: MIT
// One paged history query (`history.runs`, `history.events`) kept in step with its model: reload() asks for
// the first page and replaces the rows, loadMore() appends the next page, and an answer to a request that a
// newer one superseded (the filter changed meanwhile) is dropped. markStale() is for pushed events: the query
// is read again shortly if its view is visible (bursts of events cost one request), else when it is shown.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

class QWidget;

namespace Cordon::Ui {

class DaemonConnection;
class PagedListModel;

class PagedQuery final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PagedQuery)

public:
    // Pushed events are gathered this long before the query is read again.
    static constexpr int StaleDelayMs = 200;

    // `itemsKey` names the answer's array ("runs", "events"); `view` is the widget whose visibility decides
    // when a stale query is read again.
    PagedQuery(DaemonConnection &connection, PagedListModel *model, QString method, QString itemsKey,
               QWidget *view);

    // The filter's parameters, asked for at every request; `limit` and `offset` are added.
    void setParameters(std::function<QJsonObject()> parameters) { m_parameters = std::move(parameters); }
    void setPageSize(int size) { m_pageSize = qBound(1, size, 500); }
    int pageSize() const { return m_pageSize; }

    void reload();
    void loadMore();
    void markStale();
    // The filter changed: read the first page now if the view is shown, else when it is.
    void refilter();
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    // A page arrived and is in the model; `appended` for loadMore().
    void loaded(bool appended);
    void failed(const QString &message);
    // A request went out or its answer came back.
    void loadingChanged(bool loading);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void request(bool append);

    DaemonConnection &m_connection;
    PagedListModel *m_model;
    QString m_method;
    QString m_itemsKey;
    QPointer<QWidget> m_view;
    std::function<QJsonObject()> m_parameters;
    QTimer m_staleTimer;
    int m_pageSize = 50;
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_stale = true;
};

} // namespace Cordon::Ui
