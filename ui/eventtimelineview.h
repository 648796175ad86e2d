// SPDX-License-Identifier: MIT
// The event timeline: what the daemon recorded (`history.events`), newest first and paged like the runs,
// filtered by kind (lifecycle, runs, files, network decisions) and optionally by container. Pushed `event`s
// mark it stale: it is read again shortly while shown, or when next shown.
#pragma once

#include <QWidget>

class QComboBox;
class QTreeView;

namespace Cordon::Ui {

class DaemonConnection;
class EventTimelineModel;
class PagedFooter;
class PagedQuery;

class EventTimelineView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventTimelineView)

public:
    explicit EventTimelineView(DaemonConnection &connection, QWidget *parent = nullptr);

    EventTimelineModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    PagedQuery &query() const { return *m_query; }
    QString footerText() const;

    // A kind ("container.started") or a prefix ending in a dot ("network."); empty for every kind.
    void setKindFilter(const QString &kind);
    // Only this container's events; empty for all (the daemon's own events too).
    void setContainerFilter(const QString &containerId);
    // Whose events: the user's own (the default), also the Go/No-Go audits' (`includeAudits`), or only
    // those of one origin ("audit:<id>"), as history.events' `audits` and `origin` say.
    void setOriginFilter(bool includeAudits, const QString &origin = {});

Q_SIGNALS:
    void pageLoaded();

private:
    EventTimelineModel *m_model;
    PagedQuery *m_query;
    QComboBox *m_kind;
    QTreeView *m_view;
    PagedFooter *m_footer;
    QString m_container;
    bool m_includeAudits = false;
    QString m_origin;
};

} // namespace Cordon::Ui
