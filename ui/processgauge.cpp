// SPDX-License-Identifier: MIT
#include "processgauge.h"

#include "memoryhistory.h"
#include "messagetone.h"

#include <QGuiApplication>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

namespace Cordon::Ui {

ProcessGauge::ProcessGauge(MemoryHistory &history, QWidget *parent)
    : QWidget(parent), m_history(history), m_label(new QLabel(this)), m_bar(new QProgressBar(this))
{
    m_label->setObjectName(QStringLiteral("processGaugeText"));
    m_label->setWordWrap(true);
    m_bar->setObjectName(QStringLiteral("processGaugeBar"));
    m_bar->setTextVisible(false);
    m_bar->setMaximumHeight(8);
    m_bar->setAccessibleName(tr("Processes in the container"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    connect(&m_history, &MemoryHistory::sampleAdded, this,
            [this](const QString &containerId, const MemorySample &sample) {
                if (containerId == m_containerId)
                    showSample(&sample);
            });
    connect(&m_history, &MemoryHistory::historyReset, this, [this] { setContainer(m_containerId); });
    showSample(nullptr);
}

void ProcessGauge::setContainer(const QString &containerId)
{
    m_containerId = containerId;
    const auto &samples = m_history.samples(containerId);
    showSample(samples.empty() ? nullptr : &samples.back());
}

void ProcessGauge::showSample(const MemorySample *sample)
{
    // No sample (another container, stopped, no cgroups): say nothing rather than a stale number.
    if (!sample || sample->pidsLimit <= 0) {
        m_limitReached = false;
        m_label->setText(tr("Processes: —"));
        m_bar->setRange(0, 1);
        m_bar->setValue(0);
        paint(false);
        m_bar->setAccessibleDescription(m_label->text());
        return;
    }
    const auto runs = m_runs.constFind(m_containerId);
    const qint64 refused =
        runs == m_runs.cend() ? 0 : qMax<qint64>(0, sample->pidsLimitHits - runs->refusedBefore);
    m_limitReached = refused > 0;
    QString text = tr("Processes: %1 of %2").arg(sample->pids).arg(sample->pidsLimit);
    if (m_limitReached)
        text += refused == 1 ? tr(" · the limit refused a fork")
                             : tr(" · the limit refused %1 forks").arg(refused);
    m_label->setText(text);
    m_bar->setRange(0, int(qMin<qint64>(sample->pidsLimit, 1 << 20)));
    m_bar->setValue(int(qMin(sample->pids, sample->pidsLimit)));
    paint(m_limitReached);
    m_bar->setAccessibleDescription(text);
}

void ProcessGauge::runStarted(const QString &containerId)
{
    RunsUnderWay &runs = m_runs[containerId];
    if (runs.count++ == 0) {
        const auto &samples = m_history.samples(containerId);
        runs.refusedBefore = samples.empty() ? 0 : samples.back().pidsLimitHits;
    }
}

void ProcessGauge::runFinished(const QString &containerId)
{
    const auto runs = m_runs.find(containerId);
    if (runs == m_runs.end() || --runs->count > 0)
        return;
    m_runs.erase(runs);
    if (containerId == m_containerId)
        setContainer(m_containerId);
}

void ProcessGauge::paint(bool alarm)
{
    // From the application palette each time, so a theme switch is followed and nothing accumulates.
    QPalette barPalette = QGuiApplication::palette();
    QPalette labelPalette = barPalette;
    if (alarm) {
        const QColor held = toneColours(Tone::Contained, barPalette).accent;
        barPalette.setColor(QPalette::Highlight, held);
        labelPalette.setColor(QPalette::WindowText, held);
    }
    m_bar->setPalette(barPalette);
    m_label->setPalette(labelPalette);
}

QString ProcessGauge::text() const
{
    return m_label->text();
}

} // namespace Cordon::Ui
