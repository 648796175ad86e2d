// SPDX-License-Identifier: MIT
#include "messagetone.h"

#include <QtMath>

namespace Cordon::Ui {

namespace {

constexpr double ReadableContrast = 4.5;

QColor hueOf(Tone tone)
{
    switch (tone) {
    case Tone::Success:
        return QColor(0x2e, 0x9d, 0x4f);
    case Tone::Failure:
        return QColor(0xd0, 0x3b, 0x3b);
    case Tone::Running:
        return QColor(0x3b, 0x7d, 0xd8);
    case Tone::Warning:
        return QColor(0xc7, 0x7c, 0x02);
    case Tone::Contained:
        return QColor(0x7e, 0x57, 0xc2);
    case Tone::Neutral:
        break;
    }
    return QColor(0x6e, 0x76, 0x81);
}

double luminance(const QColor &colour)
{
    const auto channel = [](double value) {
        return value <= 0.03928 ? value / 12.92 : qPow((value + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) +
           0.0722 * channel(colour.blueF());
}

QColor mixed(const QColor &base, const QColor &tint, double share)
{
    return QColor::fromRgbF(float(base.redF() * (1 - share) + tint.redF() * share),
                            float(base.greenF() * (1 - share) + tint.greenF() * share),
                            float(base.blueF() * (1 - share) + tint.blueF() * share));
}

// The hue made lighter (on a dark ground) or darker (on a light one) until it reads on every ground given.
QColor readableOn(const QColor &hue, std::initializer_list<QColor> grounds)
{
    const bool darkGround = luminance(*grounds.begin()) < 0.2;
    float h = 0, s = 0, l = 0;
    hue.getHslF(&h, &s, &l);
    QColor candidate = hue;
    for (int step = 0; step < 50; ++step) {
        bool readable = true;
        for (const QColor &ground : grounds)
            readable = readable && contrastRatio(candidate, ground) >= ReadableContrast;
        if (readable)
            return candidate;
        l = darkGround ? qMin(1.0f, l + 0.02f) : qMax(0.0f, l - 0.02f);
        candidate = QColor::fromHslF(h < 0 ? 0 : h, s, l);
    }
    return darkGround ? QColor(Qt::white) : QColor(Qt::black);
}

} // namespace

double contrastRatio(const QColor &a, const QColor &b)
{
    const double first = luminance(a);
    const double second = luminance(b);
    return (qMax(first, second) + 0.05) / (qMin(first, second) + 0.05);
}

ToneColours toneColours(Tone tone, const QPalette &palette)
{
    const QColor hue = hueOf(tone);
    const QColor base = palette.color(QPalette::Base);
    const QColor window = palette.color(QPalette::Window);
    ToneColours colours;
    colours.border = hue;
    colours.accent = readableOn(hue, {base, window});
    colours.background = mixed(base, hue, 0.14);
    const QColor text = palette.color(QPalette::Text);
    colours.text = contrastRatio(text, colours.background) >= ReadableContrast
                       ? text
                       : readableOn(text, {colours.background});
    return colours;
}

} // namespace Cordon::Ui
