// SPDX-License-Identifier: MIT
#include "pagedfooter.h"

#include "pagedlistmodel.h"
#include "pagedquery.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace Cordon::Ui {

PagedFooter::PagedFooter(PagedQuery &query, const PagedListModel &model,
                         std::function<QString(int, qint64)> showing, std::function<QString()> empty,
                         QWidget *parent)
    : QWidget(parent), m_query(query), m_model(model), m_showing(std::move(showing)),
      m_empty(std::move(empty)), m_label(new QLabel(this)),
      m_loadMore(new QPushButton(tr("Load &More"), this))
{
    m_label->setForegroundRole(QPalette::PlaceholderText);
    m_label->setTextFormat(Qt::PlainText);
    m_loadMore->setToolTip(tr("Read the next page from the history"));
    connect(m_loadMore, &QPushButton::clicked, &m_query, &PagedQuery::loadMore);
    connect(&m_query, &PagedQuery::loadingChanged, this, &PagedFooter::refresh);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_loadMore);
    refresh();
}

QString PagedFooter::text() const
{
    return m_label->text();
}

void PagedFooter::refresh()
{
    if (m_query.isLoading())
        m_label->setText(tr("Loading…"));
    else if (m_model.total() == 0)
        m_label->setText(m_empty());
    else
        m_label->setText(m_showing(m_model.rowCount(), m_model.total()));
    m_loadMore->setEnabled(!m_query.isLoading() && m_model.canLoadMore());
    m_loadMore->setVisible(m_model.canLoadMore());
}

} // namespace Cordon::Ui
