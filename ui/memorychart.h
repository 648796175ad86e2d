// SPDX-License-Identifier: MIT
// The live memory view of the selected container: usage over the last minutes against its limit, and each
// OOM kill marked where it happened. The peak is the run's, in the outcome banner: one figure per screen.
// Points are appended and the oldest dropped as samples arrive (2 Hz by default), never rebuilt, so the chart
// stays smooth.
#pragma once

#include "memoryhistory.h"

#include <QList>
#include <QPointF>
#include <QWidget>

class QAreaSeries;
class QCheckBox;
class QChart;
class QChartView;
class QDateTimeAxis;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QStackedWidget;
class QValueAxis;

namespace Cordon::Ui {

class MemoryChart final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MemoryChart)

public:
    static constexpr qint64 WindowMs = 3 * 60 * 1000;
    static constexpr qint64 MinWindowMs = 60 * 1000;

    MemoryChart(const MemoryHistory &history, QWidget *parent = nullptr);

    // Longer than this between two samples, the container was not running (stopped, or the daemon was): the
    // line falls to zero for the gap instead of joining the two ends as if memory had stayed in use.
    static constexpr qint64 GapMs = 10 * 1000;

    // The container to show; empty shows the empty state. `limit` is used until a sample brings its own.
    // `running` false marks the figures as the last ones measured, not current ones.
    void setContainer(const QString &containerId, qint64 limit, bool running = true);
    const QString &containerId() const { return m_containerId; }

    // For tests: points currently in the usage line, OOM marks, and the summary line.
    int usagePointCount() const;
    QList<QPointF> usagePoints() const;
    int oomMarkCount() const;
    QString summaryText() const;
    // The value axis's tick labels, as many as are drawn (tests).
    int valueTickCount() const;

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    void onSample(const QString &containerId, const MemorySample &sample);
    void appendPoint(const MemorySample &sample, const MemorySample *previous);
    // The points of one sample, after the two zero points of a gap before it when there is one.
    static QList<QPointF> pointsFor(const MemorySample &sample, const MemorySample *previous);
    void updateAxesAndLabels();
    void applyPalette();
    void applyFonts();
    void fitTimeTicks();
    // As many of the scale's round ticks as fit one above the other (a short pane, a docked audit below).
    void fitValueTicks();
    void fitLegend();

    const MemoryHistory &m_history;
    QString m_containerId;
    qint64 m_limit = 0;
    bool m_running = true;
    qint64 m_latestAt = 0;
    MemorySample m_last;
    bool m_haveLast = false;
    int m_scaleTicks = 5; // the ticks of the value axis's round scale, before fitValueTicks() thins them

    QLabel *m_summary;
    QCheckBox *m_scaleToLimit;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    QChartView *m_view;
    QChart *m_chart;
    QLineSeries *m_usage;
    QLineSeries *m_baseline;
    QAreaSeries *m_area;
    QLineSeries *m_limitLine;
    QScatterSeries *m_oomMarks;
    QDateTimeAxis *m_timeAxis;
    QValueAxis *m_valueAxis;
};

} // namespace Cordon::Ui
