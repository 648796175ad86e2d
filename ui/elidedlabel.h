// SPDX-License-Identifier: MIT
// A one-line label that ends in "…" when it is narrower than its text, instead of making its window wider:
// a container's name of 64 characters, or any name in presentation mode's larger font, set the run panel's
// minimum width and pushed the right column off a 1280-pixel screen. text() stays whole; the tooltip has it
// while it is cut.
#pragma once

#include <QLabel>

namespace Cordon::Ui {

class ElidedLabel final : public QLabel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ElidedLabel)

public:
    explicit ElidedLabel(QWidget *parent = nullptr);

    // Room for a few characters and the ellipsis, or the whole text if it is shorter.
    QSize minimumSizeHint() const override;
    // What is shown instead of the text when the text does not fit (cut itself if it must): the part that
    // matters, e.g. a container's name without its memory tier. Empty: the text is cut.
    void setShortText(const QString &shortText);
    // What the label shows at its present width.
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_shortText;
};

} // namespace Cordon::Ui
