// SPDX-License-Identifier: MIT
// The strip above the output that says how the last run ended: exit code or signal, the error class in
// words, how long it took and its peak memory. Tinted by outcome, readable in light and dark palettes, and
// tinted again when the theme changes while it is shown.
#pragma once

#include "outcomesummary.h"

#include <QFrame>

#include <optional>

class QLabel;

namespace Cordon::Ui {

class OutcomeBanner final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutcomeBanner)

public:
    explicit OutcomeBanner(QWidget *parent = nullptr);

    void setSummary(const OutcomeSummary &summary);
    void clear();

    // The words shown, headline first (for tests and the accessible description).
    QString text() const;
    // The tint behind the words (for tests): the application palette's base mixed with the outcome's accent.
    QColor background() const { return m_background; }

private:
    // Paints the summary in the current palette and mode; a theme or presentation switch calls it again.
    void apply();

    std::optional<OutcomeSummary> m_summary;
    QColor m_background;
    QLabel *m_icon;
    QLabel *m_headline;
    QLabel *m_explanation;
    QLabel *m_details;
};

} // namespace Cordon::Ui
