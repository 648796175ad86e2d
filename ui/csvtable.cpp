// SPDX-License-Identifier: MIT
#include "csvtable.h"

namespace Cordon::Ui {

namespace {

QChar guessSeparator(const QString &text)
{
    int counts[3] = {0, 0, 0};
    const QChar candidates[3] = {QLatin1Char(','), QLatin1Char(';'), QLatin1Char('\t')};
    bool quoted = false;
    for (const QChar c : text) {
        if (c == QLatin1Char('"'))
            quoted = !quoted;
        else if (!quoted && (c == QLatin1Char('\n') || c == QLatin1Char('\r')))
            break;
        else if (!quoted)
            for (int i = 0; i < 3; ++i)
                counts[i] += c == candidates[i] ? 1 : 0;
    }
    int best = 0;
    for (int i = 1; i < 3; ++i)
        best = counts[i] > counts[best] ? i : best;
    return candidates[best];
}

} // namespace

CsvTable CsvTable::parse(const QString &text, int maxRows, bool textIsComplete)
{
    CsvTable table;
    const QChar separator = guessSeparator(text);
    QStringList row;
    QString field;
    bool quoted = false;
    bool rowStarted = false;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < n && text.at(i + 1) == QLatin1Char('"')) {
                    field += c;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"') && field.isEmpty()) {
            quoted = true;
            rowStarted = true;
        } else if (c == separator) {
            row.append(field);
            field.clear();
            rowStarted = true;
        } else if (c == QLatin1Char('\n') || c == QLatin1Char('\r')) {
            if (c == QLatin1Char('\r') && i + 1 < n && text.at(i + 1) == QLatin1Char('\n'))
                ++i;
            if (!rowStarted && field.isEmpty())
                continue; // blank line
            row.append(field);
            table.rows.append(row);
            row.clear();
            field.clear();
            rowStarted = false;
            if (table.rows.size() >= maxRows) {
                // Anything but trailing line breaks means there was more.
                table.truncated = text.mid(i + 1).trimmed().size() > 0 || !textIsComplete;
                return table;
            }
        } else {
            field += c;
            rowStarted = true;
        }
    }
    if (rowStarted || !field.isEmpty()) {
        if (textIsComplete && !quoted) {
            row.append(field);
            table.rows.append(row);
        } else {
            table.truncated = true;
        }
    } else if (!textIsComplete) {
        table.truncated = true;
    }
    return table;
}

} // namespace Cordon::Ui
