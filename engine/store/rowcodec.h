// SPDX-License-Identifier: MIT
// How records map to rows: the column lists the queries select, and the readers that turn a row back into a
// record. Kept beside each other so a column added to one is added to both.
#pragma once

#include "store/historyrecords.h"
#include "store/statement.h"

#include <QByteArray>

namespace Cordon::Store {

extern const char ContainerColumns[];
extern const char FileColumns[];
extern const char EventColumns[];
// Without output, the code and output columns are selected as empty blobs: lists never load megabytes.
QByteArray runColumns(bool withOutput);

ContainerRecord containerFromRow(const Statement &row);
RunRecord runFromRow(const Statement &row);
FileRecord fileFromRow(const Statement &row);
EventRecord eventFromRow(const Statement &row);

// Lists and details are stored as compact JSON text. A value that does not parse reads as empty rather than
// failing the whole query: one damaged row must not hide the rest of the history.
QByteArray jsonText(const QJsonArray &array);
QByteArray jsonText(const QJsonObject &object);
QJsonArray jsonArrayFrom(const QByteArray &text);
QJsonObject jsonObjectFrom(const QByteArray &text);
QStringList stringListFrom(const QByteArray &text);

} // namespace Cordon::Store
