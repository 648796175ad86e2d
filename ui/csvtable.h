// SPDX-License-Identifier: MIT
// A CSV file's first rows for the preview table (RFC 4180: comma or semicolon separated, double-quoted fields
// with "" for a quote and line breaks inside quotes). Pure, so that odd files can be tested as strings.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace Cordon::Ui {

struct CsvTable
{
    QList<QStringList> rows;
    bool truncated = false; // more rows than asked for, or the text ended inside a row

    // `text` may be cut anywhere (the preview reads only the start of a file): a last row cut short is
    // dropped and `truncated` is set. The separator is the one of ',', ';' and tab that occurs most often
    // outside quotes in the first line.
    static CsvTable parse(const QString &text, int maxRows, bool textIsComplete);
};

} // namespace Cordon::Ui
