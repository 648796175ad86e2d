// SPDX-License-Identifier: MIT
#include "paletteicon.h"

#include <QApplication>
#include <QFile>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPalette>
#include <QSvgRenderer>

namespace Cordon::Ui {

namespace {

class PaletteIconEngine final : public QIconEngine
{
public:
    PaletteIconEngine(QByteArray svg, QColor fixed) : m_svg(std::move(svg)), m_fixed(fixed) {}

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State) override
    {
        QSvgRenderer renderer(tinted(mode));
        renderer.render(painter, rect);
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        return scaledPixmap(size, mode, state, 1.0);
    }

    QPixmap scaledPixmap(const QSize &size, QIcon::Mode mode, QIcon::State state, qreal scale) override
    {
        QPixmap pixmap(size * scale);
        pixmap.fill(Qt::transparent);
        {
            QPainter painter(&pixmap);
            paint(&painter, QRect(QPoint(0, 0), pixmap.size()), mode, state);
        }
        pixmap.setDevicePixelRatio(scale);
        return pixmap;
    }

    QIconEngine *clone() const override { return new PaletteIconEngine(m_svg, m_fixed); }
    QString key() const override { return QStringLiteral("cordon-palette"); }

private:
    QByteArray tinted(QIcon::Mode mode) const
    {
        const QPalette palette = QApplication::palette();
        QColor colour = m_fixed.isValid() ? m_fixed : palette.color(QPalette::WindowText);
        if (mode == QIcon::Disabled)
            colour = palette.color(QPalette::Disabled, QPalette::WindowText);
        else if (mode == QIcon::Selected && !m_fixed.isValid())
            colour = palette.color(QPalette::HighlightedText);
        QByteArray svg = m_svg;
        return svg.replace("currentColor", colour.name().toLatin1());
    }

    QByteArray m_svg;
    QColor m_fixed;
};

} // namespace

QIcon paletteIcon(const QString &name, const QColor &colour)
{
    // Read each file once; the engines copy the bytes, which are a few hundred each.
    static QHash<QString, QByteArray> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        QFile file(QStringLiteral(":/icons/%1.svg").arg(name));
        it = cache.insert(name, file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray());
    }
    if (it->isEmpty())
        return {};
    return QIcon(new PaletteIconEngine(*it, colour));
}

} // namespace Cordon::Ui
