// SPDX-License-Identifier: MIT
#include "memorychart.h"

#include "core/formatting.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace Cordon::Ui {

namespace {

constexpr double MiB = 1024.0 * 1024.0;

const QColor UsageColour(0x3b, 0x7d, 0xd8);
const QColor LimitColour(0xd0, 0x3b, 0x3b);

struct AxisScale
{
    double top;
    int ticks;
};

// A round axis maximum in MiB with at most five steps of 1, 2, 2.5 or 5 times a power of ten, so that every
// tick label is a round number.
AxisScale niceScale(double value)
{
    const double magnitude = std::pow(10.0, std::floor(std::log10(qMax(value, 1.0) / 5.0)));
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0, 20.0}) {
        const double step = factor * magnitude;
        const double steps = std::ceil(value / step);
        if (steps <= 5)
            return {steps * step, static_cast<int>(steps) + 1};
    }
    return {value, 5};
}

} // namespace

MemoryChart::MemoryChart(const MemoryHistory &history, QWidget *parent)
    : QWidget(parent), m_history(history), m_summary(new QLabel(this)),
      m_scaleToLimit(new QCheckBox(tr("Scale to limit"), this)), m_stack(new QStackedWidget(this)),
      m_empty(new QLabel(this)), m_view(new QChartView(this)), m_chart(new QChart),
      m_usage(new QLineSeries(this)), m_baseline(new QLineSeries(this)),
      m_area(new QAreaSeries(m_usage, m_baseline)), m_limitLine(new QLineSeries(this)),
      m_oomMarks(new QScatterSeries(this)), m_timeAxis(new QDateTimeAxis(this)),
      m_valueAxis(new QValueAxis(this))
{
    setAccessibleName(tr("Memory usage"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setAccessibleName(tr("Memory summary"));
    m_scaleToLimit->setToolTip(tr("Show the whole range up to the container's memory limit"));
    connect(m_scaleToLimit, &QCheckBox::toggled, this, &MemoryChart::updateAxesAndLabels);

    m_area->setName(tr("Used"));
    m_limitLine->setName(tr("Limit"));
    m_oomMarks->setName(tr("OOM kill"));
    m_oomMarks->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_oomMarks->setMarkerSize(9);
    m_oomMarks->setColor(LimitColour);
    m_oomMarks->setBorderColor(LimitColour);
    QPen usagePen(UsageColour, 2);
    m_area->setPen(usagePen);
    QColor fill = UsageColour;
    fill.setAlpha(60);
    m_area->setBrush(fill);
    m_limitLine->setPen(QPen(LimitColour, 1.5, Qt::DashLine));

    m_chart->addSeries(m_area);
    m_chart->addSeries(m_limitLine);
    m_chart->addSeries(m_oomMarks);
    m_timeAxis->setFormat(QStringLiteral("HH:mm:ss"));
    m_timeAxis->setTickCount(4);
    m_valueAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_valueAxis->setTitleText(tr("MiB"));
    m_valueAxis->setTickCount(5);
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_chart->addAxis(m_valueAxis, Qt::AlignLeft);
    // The plot area is laid out after a resize: the ticks are fitted to it once it is known.
    connect(m_chart, &QChart::plotAreaChanged, this, &MemoryChart::fitValueTicks);
    for (QAbstractSeries *series : m_chart->series()) {
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_valueAxis);
    }
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(0);
    m_view->setChart(m_chart);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(tr("Memory usage chart"));
    m_view->setMinimumHeight(180);

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setMargin(16);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_view);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(m_summary);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_scaleToLimit, 0, Qt::AlignLeft);

    connect(&m_history, &MemoryHistory::sampleAdded, this, &MemoryChart::onSample);
    connect(&m_history, &MemoryHistory::historyReset, this, &MemoryChart::rebuild);
    applyPalette();
    applyFonts();
    rebuild();
}

void MemoryChart::setContainer(const QString &containerId, qint64 limit, bool running)
{
    if (containerId == m_containerId && limit == m_limit && running == m_running)
        return;
    const bool other = containerId != m_containerId || limit != m_limit;
    m_containerId = containerId;
    m_limit = limit;
    m_running = running;
    if (other)
        rebuild();
    else
        updateAxesAndLabels();
}

QList<QPointF> MemoryChart::usagePoints() const
{
    return m_usage->points();
}

QList<QPointF> MemoryChart::pointsFor(const MemorySample &sample, const MemorySample *previous)
{
    QList<QPointF> points;
    if (previous && sample.at - previous->at > GapMs) {
        points.append(QPointF(double(previous->at + 1), 0));
        points.append(QPointF(double(sample.at - 1), 0));
    }
    points.append(QPointF(double(sample.at), double(sample.current) / MiB));
    return points;
}

int MemoryChart::usagePointCount() const
{
    return static_cast<int>(m_usage->count());
}

int MemoryChart::oomMarkCount() const
{
    return static_cast<int>(m_oomMarks->count());
}

QString MemoryChart::summaryText() const
{
    return m_summary->text();
}

void MemoryChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    else if (event->type() == QEvent::FontChange)
        applyFonts();
}

void MemoryChart::applyFonts()
{
    // Qt Charts keeps fonts of its own; these follow the widget's, so presentation mode enlarges them too.
    const QFont labels = font();
    QFont title = labels;
    title.setBold(true);
    for (QAbstractAxis *axis :
         {static_cast<QAbstractAxis *>(m_timeAxis), static_cast<QAbstractAxis *>(m_valueAxis)}) {
        axis->setLabelsFont(labels);
        axis->setTitleFont(title);
    }
    fitTimeTicks();
    fitLegend();
}

void MemoryChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitTimeTicks();
    fitLegend();
}

int MemoryChart::valueTickCount() const
{
    return m_valueAxis->tickCount();
}

void MemoryChart::fitValueTicks()
{
    // Labels closer than about two lines apart are cut to "…" by Qt Charts. Fewer ticks keep round labels:
    // every second (or third…) tick of the scale, so 0, 500, 1000 rather than 0, 416.7, 833.3.
    const int line = QFontMetrics(m_valueAxis->labelsFont()).height();
    const int room = qMax(0, int(m_chart->plotArea().height()));
    const int fitting = qMax(2, room / (line * 2) + 1);
    const int intervals = qMax(1, m_scaleTicks - 1);
    int every = 1;
    while (intervals / every + 1 > fitting && every < intervals)
        ++every;
    while (intervals % every != 0) // a step that divides the scale, so that the top stays a label
        ++every;
    m_valueAxis->setTickCount(intervals / every + 1);
}

void MemoryChart::fitLegend()
{
    // The legend's names whole, in one row: with presentation mode's large font in a narrow pane, Qt Charts
    // would cut them to "U… Li… O…". The font steps down until the row fits, never below about half.
    QFont legendFont = font();
    const qreal smallest = legendFont.pointSizeF() * 0.55;
    const QStringList names{m_area->name(), m_limitLine->name(), m_oomMarks->name()};
    auto rowWidth = [&names](const QFont &candidate) {
        const QFontMetrics metrics(candidate);
        int width = 0;
        for (const QString &name : names)
            width += metrics.horizontalAdvance(name) + metrics.height() * 3; // marker, gap and spacing
        return width;
    };
    while (rowWidth(legendFont) > m_view->width() - 48 && legendFont.pointSizeF() > smallest)
        legendFont.setPointSizeF(legendFont.pointSizeF() * 0.9);
    m_chart->legend()->setFont(legendFont);
}

void MemoryChart::fitTimeTicks()
{
    // As many time labels as fit side by side with room between them: a narrow pane or presentation mode's
    // large font would otherwise cut them to "14:47:…".
    const int label = QFontMetrics(m_timeAxis->labelsFont()).horizontalAdvance(QStringLiteral("00:00:00"));
    const int room = m_view->width() - 2 * label; // the value axis and the margins
    m_timeAxis->setTickCount(qBound(2, room / (label * 3 / 2) + 1, 4));
}

void MemoryChart::applyPalette()
{
    const QPalette pal = palette();
    m_chart->setBackgroundBrush(pal.color(QPalette::Base));
    m_chart->setPlotAreaBackgroundVisible(false);
    m_chart->legend()->setLabelColor(pal.color(QPalette::Text));
    // Grid and axis lines mixed from the page and the text, so they stay faint on light and dark pages alike.
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    auto mix = [&](float amount) {
        return QColor::fromRgbF(base.redF() + (text.redF() - base.redF()) * amount,
                                base.greenF() + (text.greenF() - base.greenF()) * amount,
                                base.blueF() + (text.blueF() - base.blueF()) * amount);
    };
    for (QAbstractAxis *axis :
         {static_cast<QAbstractAxis *>(m_timeAxis), static_cast<QAbstractAxis *>(m_valueAxis)}) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setGridLineColor(mix(0.14f));
        axis->setLinePenColor(mix(0.4f));
    }
}

void MemoryChart::rebuild()
{
    m_usage->clear();
    m_baseline->clear();
    m_oomMarks->clear();
    m_haveLast = false;
    m_latestAt = 0;
    const std::deque<MemorySample> &samples = m_history.samples(m_containerId);
    QList<QPointF> usage;
    QList<QPointF> baseline;
    const MemorySample *previous = nullptr;
    const qint64 from = samples.empty() ? 0 : samples.back().at - WindowMs;
    for (const MemorySample &sample : samples) {
        if (sample.at >= from) {
            for (const QPointF &point : pointsFor(sample, previous)) {
                usage.append(point);
                baseline.append(QPointF(point.x(), 0));
            }
            if (previous && sample.oomKills > previous->oomKills)
                m_oomMarks->append(double(sample.at), double(qMax(previous->current, sample.current)) / MiB);
        }
        previous = &sample;
    }
    // replace() draws once for the whole list; appending point by point would repaint for each.
    m_usage->replace(usage);
    m_baseline->replace(baseline);
    if (!samples.empty()) {
        m_last = samples.back();
        m_haveLast = true;
        m_latestAt = m_last.at;
        if (m_last.limit > 0)
            m_limit = m_last.limit;
    }
    updateAxesAndLabels();
}

void MemoryChart::onSample(const QString &containerId, const MemorySample &sample)
{
    if (containerId != m_containerId)
        return;
    const MemorySample previous = m_last;
    appendPoint(sample, m_haveLast ? &previous : nullptr);
    m_last = sample;
    m_haveLast = true;
    m_latestAt = sample.at;
    if (sample.limit > 0)
        m_limit = sample.limit;
    // Drop what scrolled out of the window (with one point to spare, so the line reaches the left edge).
    int stale = 0;
    while (stale + 1 < m_usage->count() && m_usage->at(stale + 1).x() < double(sample.at - WindowMs))
        ++stale;
    if (stale > 0) {
        m_usage->removePoints(0, stale);
        m_baseline->removePoints(0, stale);
    }
    while (m_oomMarks->count() > 0 && m_oomMarks->at(0).x() < double(sample.at - WindowMs))
        m_oomMarks->remove(0);
    updateAxesAndLabels();
}

void MemoryChart::appendPoint(const MemorySample &sample, const MemorySample *previous)
{
    for (const QPointF &point : pointsFor(sample, previous)) {
        m_usage->append(point);
        m_baseline->append(point.x(), 0);
    }
    // Marked at the height the usage had reached, where the eye looks for it, not at the drop after it.
    if (previous && sample.oomKills > previous->oomKills)
        m_oomMarks->append(double(sample.at), double(qMax(previous->current, sample.current)) / MiB);
}

void MemoryChart::updateAxesAndLabels()
{
    m_scaleToLimit->setVisible(m_haveLast && m_limit > 0);
    if (m_containerId.isEmpty()) {
        m_empty->setText(tr("Select a container to see its memory use."));
        m_summary->clear();
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    if (!m_haveLast) {
        m_empty->setText(
            m_running
                ? tr("Waiting for memory samples…\nThe daemon measures a running container twice a second.")
                : tr("Not running: nothing to measure.\nStart the container to see its memory use."));
        m_summary->setText(m_limit > 0 ? tr("Limit %1").arg(Format::bytes(m_limit)) : QString());
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    m_stack->setCurrentWidget(m_view);
    // A young container's first seconds fill a minute-wide view instead of a sliver at the right edge of
    // three minutes; the view widens as its history grows.
    const qint64 end = qMax(m_latestAt, qint64(1));
    const qint64 first = m_usage->count() > 0 ? qint64(m_usage->at(0).x()) : end;
    const qint64 start = end - qBound(MinWindowMs, end - first, WindowMs);
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(start), QDateTime::fromMSecsSinceEpoch(end));

    double highest = 0;
    for (const QPointF &point : m_usage->points())
        highest = qMax(highest, point.y());
    const double limitMiB = double(m_limit) / MiB;
    const AxisScale scale =
        niceScale(m_scaleToLimit->isChecked() && m_limit > 0 ? limitMiB : std::max(highest * 1.2, 8.0));
    m_valueAxis->setRange(0, scale.top);
    m_scaleTicks = scale.ticks;
    fitValueTicks();
    m_limitLine->replace({QPointF(double(start), limitMiB), QPointF(double(end), limitMiB)});

    // Figures of a container that no longer runs are the last ones measured, and say so. No peak: the
    // outcome banner beside the chart gives the run's, and the container's (since it started, here) would
    // be a second, different figure under the same word.
    QString summary =
        m_running ? tr("Now %1").arg(Format::bytes(m_last.current))
                  : tr("Not running · last measured %1 at %2")
                        .arg(Format::bytes(m_last.current),
                             QDateTime::fromMSecsSinceEpoch(m_last.at).toString(QStringLiteral("HH:mm:ss")));
    if (m_limit > 0)
        summary += tr(" · limit %1").arg(Format::bytes(m_limit));
    if (m_last.oomKills > 0)
        summary += m_last.oomKills == 1 ? tr(" · 1 OOM kill") : tr(" · %1 OOM kills").arg(m_last.oomKills);
    m_summary->setText(summary);
}

} // namespace Cordon::Ui
