// SPDX-License-Identifier: MIT
// The line under a paged list: "Showing 50 of 312 runs", "Loading…" or why the list is empty, and Load More
// for the next page while there is one.
#pragma once

#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;

namespace Cordon::Ui {

class PagedListModel;
class PagedQuery;

class PagedFooter final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PagedFooter)

public:
    // `showing(shown, total)` says how much is listed; `empty()` why nothing is (it may look at the filter).
    PagedFooter(PagedQuery &query, const PagedListModel &model, std::function<QString(int, qint64)> showing,
                std::function<QString()> empty, QWidget *parent = nullptr);

    QPushButton *loadMoreButton() const { return m_loadMore; }
    QString text() const;
    void refresh();

private:
    PagedQuery &m_query;
    const PagedListModel &m_model;
    std::function<QString(int, qint64)> m_showing;
    std::function<QString()> m_empty;
    QLabel *m_label;
    QPushButton *m_loadMore;
};

} // namespace Cordon::Ui
