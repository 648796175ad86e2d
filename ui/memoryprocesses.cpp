// SPDX-License-Identifier: MIT
#include "memoryprocesses.h"

#include "core/formatting.h"
#include "daemonconnection.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace Cordon::Ui {

MemoryProcessesView::MemoryProcessesView(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_toggle(new QToolButton(this)), m_status(new QLabel(this)),
      m_list(new QTreeWidget(this))
{
    setAccessibleName(tr("Memory by process"));
    m_toggle->setObjectName(QStringLiteral("memoryProcessesToggle"));
    m_toggle->setText(tr("&Processes"));
    m_toggle->setCheckable(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::RightArrow);
    m_toggle->setAutoRaise(true);
    m_toggle->setToolTip(tr("Show how much memory each process in the container holds"));
    connect(m_toggle, &QToolButton::toggled, this, [this](bool open) {
        m_toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_list->setVisible(open);
        m_status->setVisible(open);
        updatePolling();
    });
    m_status->setObjectName(QStringLiteral("memoryProcessesStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_status->setForegroundRole(QPalette::PlaceholderText);
    m_list->setObjectName(QStringLiteral("memoryProcessesList"));
    m_list->setAccessibleName(tr("Processes and their resident memory"));
    m_list->setHeaderLabels({tr("PID"), tr("Command"), tr("Resident")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionMode(QAbstractItemView::NoSelection);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(CommandColumn, QHeaderView::Stretch);
    m_list->setMinimumHeight(90);
    m_list->hide();
    m_status->hide();

    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &MemoryProcessesView::refresh);
    connect(&m_connection, &DaemonConnection::statusChanged, this, &MemoryProcessesView::updatePolling);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_toggle, 0, Qt::AlignLeft);
    layout->addWidget(m_status);
    layout->addWidget(m_list, 1);
}

void MemoryProcessesView::setContainer(const QString &containerId, bool running)
{
    if (containerId == m_containerId && running == m_running)
        return;
    if (containerId != m_containerId) {
        ++m_generation; // an answer about the previous container is dropped
        m_inFlight = false;
        setProcesses({});
    }
    m_containerId = containerId;
    m_running = running;
    updatePolling();
}

void MemoryProcessesView::setExpanded(bool expanded)
{
    m_toggle->setChecked(expanded);
}

bool MemoryProcessesView::isExpanded() const
{
    return m_toggle->isChecked();
}

QString MemoryProcessesView::statusText() const
{
    return m_status->text();
}

void MemoryProcessesView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    updatePolling();
}

void MemoryProcessesView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    updatePolling();
}

void MemoryProcessesView::updatePolling()
{
    const bool wanted =
        isExpanded() && isVisible() && m_running && !m_containerId.isEmpty() && m_connection.isConnected();
    if (!wanted) {
        m_timer.stop();
        if (m_containerId.isEmpty())
            m_status->setText(tr("Select a container to see its processes."));
        else if (!m_running)
            m_status->setText(tr("The container is not running: it has no processes."));
        if (!m_running)
            setProcesses({});
        return;
    }
    if (!m_timer.isActive()) {
        m_timer.start();
        refresh();
    }
}

void MemoryProcessesView::refresh()
{
    // One request at a time: a slow answer is not piled onto by the next tick.
    if (m_inFlight || m_containerId.isEmpty())
        return;
    m_inFlight = true;
    const quint64 generation = m_generation;
    m_connection.call(
        QStringLiteral("memory.processes"), {{QStringLiteral("container"), m_containerId}}, this,
        [this, generation](Result<QJsonObject> result) {
            if (generation != m_generation)
                return;
            m_inFlight = false;
            if (!result) {
                m_status->setText(
                    tr("The processes could not be listed: %1").arg(toQt(result.error().message())));
                return;
            }
            const QJsonArray processes = result->value(QStringLiteral("processes")).toArray();
            setProcesses(processes);
            if (processes.isEmpty())
                m_status->setText(tr("No processes are running in the container."));
            Q_EMIT refreshed();
        });
}

void MemoryProcessesView::setProcesses(const QJsonArray &processes)
{
    QList<QJsonObject> sorted;
    sorted.reserve(processes.size());
    qint64 total = 0;
    for (const QJsonValue &value : processes) {
        sorted.append(value.toObject());
        total += sorted.back().value(QStringLiteral("rss_bytes")).toInteger();
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a.value(QStringLiteral("rss_bytes")).toInteger() >
               b.value(QStringLiteral("rss_bytes")).toInteger();
    });
    m_processes = QJsonArray();
    // Rows are refilled in place: the list keeps its scroll position across the two-second refreshes.
    while (m_list->topLevelItemCount() > sorted.size())
        delete m_list->takeTopLevelItem(m_list->topLevelItemCount() - 1);
    for (int row = 0; row < sorted.size(); ++row) {
        const QJsonObject &process = sorted.at(row);
        m_processes.append(process);
        QTreeWidgetItem *item = m_list->topLevelItem(row);
        if (!item) {
            item = new QTreeWidgetItem(m_list);
            item->setTextAlignment(PidColumn, Qt::AlignRight | Qt::AlignVCenter);
            item->setTextAlignment(RssColumn, Qt::AlignRight | Qt::AlignVCenter);
        }
        item->setText(PidColumn, QString::number(process.value(QStringLiteral("pid")).toInteger()));
        item->setText(CommandColumn,
                      Format::displayName(process.value(QStringLiteral("command")).toString()));
        item->setText(RssColumn, Format::bytes(process.value(QStringLiteral("rss_bytes")).toInteger()));
    }
    if (!sorted.isEmpty())
        m_status->setText(tr("%n process(es), %1 resident in total", nullptr, int(sorted.size()))
                              .arg(Format::bytes(total)));
    else if (m_running && !m_containerId.isEmpty())
        m_status->setText(tr("Reading the processes…"));
}

} // namespace Cordon::Ui
