// SPDX-License-Identifier: MIT
#include "dialogfit.h"

#include "fitscrollarea.h"
#include "screenfit.h"

#include <QDialog>
#include <QEvent>
#include <QLayout>
#include <QScrollBar>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

namespace Cordon::Ui::DialogFit {

namespace {

// Sizes and places the dialog; lives as long as the dialog, as its child.
class Fitter final : public QObject
{
public:
    Fitter(QDialog *dialog, FitScrollArea *scroll, QWidget *footer, QSize preferred)
        : QObject(dialog), m_dialog(dialog), m_scroll(scroll), m_footer(footer), m_preferred(preferred)
    {
        dialog->installEventFilter(this);
        scroll->widget()->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_dialog && event->type() == QEvent::Show) {
            fit(true);
        } else if (event->type() == QEvent::LayoutRequest && m_dialog->isVisible() && !m_pending) {
            // After the layout has taken the change in: a widget shown or hidden, a longer text.
            m_pending = true;
            QTimer::singleShot(0, this, [this] {
                m_pending = false;
                fit(false);
            });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    // What the content and footer ask for at the screen's width, capped to its height. `opening` also
    // applies a size the dialog was given and re-centres even when the size is unchanged.
    void fit(bool opening)
    {
        const QRect available = ScreenFit::availableArea(m_dialog);
        const QSize room = ScreenFit::roomFor(m_dialog, available);
        m_scroll->setWidthCap(room.width());
        QWidget *content = m_scroll->widget();

        int width = content->sizeHint().expandedTo(content->minimumSizeHint()).width();
        width = qMax(width, m_footer->minimumSizeHint().width());
        width = qMin(qMax(width, m_preferred.width()), room.width());
        int height =
            content->hasHeightForWidth() ? content->heightForWidth(width) : content->sizeHint().height();
        height = qMax(height, content->minimumSizeHint().height());
        height +=
            m_footer->hasHeightForWidth() ? m_footer->heightForWidth(width) : m_footer->sizeHint().height();
        height = qMax(height, m_preferred.height());
        if (height > room.height()) {
            height = room.height();
            // The vertical scroll bar takes its width from the content, which would then scroll sideways too.
            width = qMin(width + m_scroll->verticalScrollBar()->sizeHint().width(), room.width());
        }
        const QSize size = QSize(width, height).expandedTo(m_dialog->minimumSizeHint()).boundedTo(room);
        if (!opening && size == m_applied)
            return;
        m_applied = size;
        m_dialog->resize(size);

        const QMargins frame = ScreenFit::frameMargins(m_dialog);
        const QSize frameSize = size + QSize(frame.left() + frame.right(), frame.top() + frame.bottom());
        const QWidget *parent = m_dialog->parentWidget();
        const QPoint centre =
            parent && parent->isVisible() ? parent->window()->frameGeometry().center() : available.center();
        m_dialog->move(ScreenFit::centredInside(frameSize, centre, available).topLeft());
    }

    QDialog *m_dialog;
    FitScrollArea *m_scroll;
    QWidget *m_footer;
    QSize m_preferred;
    QSize m_applied;
    bool m_pending = false;
};

} // namespace

void install(QDialog *dialog, QLayout *content, QWidget *footer, QSize preferred)
{
    // The content's bottom margin goes below the footer instead, so the buttons keep their place at the
    // dialog's edge; the gap between content and footer is the layout's spacing.
    auto *page = new QWidget;
    page->setObjectName(QStringLiteral("dialogFitContent"));
    // Set first: a layout without a widget reports no margins where the style would give it some.
    page->setLayout(content);
    const QMargins margins = content->contentsMargins();
    int spacing = content->spacing();
    if (spacing < 0)
        spacing = dialog->style()->pixelMetric(QStyle::PM_LayoutVerticalSpacing, nullptr, dialog);
    content->setContentsMargins(margins.left(), margins.top(), margins.right(), 0);
    auto *scroll = new FitScrollArea(page, dialog);
    scroll->setObjectName(QStringLiteral("dialogFitScroll"));

    auto *pinned = new QWidget(dialog);
    pinned->setObjectName(QStringLiteral("dialogFitFooter"));
    auto *pinnedLayout = new QVBoxLayout(pinned);
    pinnedLayout->setContentsMargins(margins.left(), spacing, margins.right(), margins.bottom());
    footer->setParent(pinned);
    pinnedLayout->addWidget(footer);

    auto *layout = new QVBoxLayout(dialog);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(scroll, 1);
    layout->addWidget(pinned);

    new Fitter(dialog, scroll, pinned, preferred);
}

} // namespace Cordon::Ui::DialogFit
