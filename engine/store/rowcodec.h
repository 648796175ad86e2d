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
// With the name of the event's container (empty for a daemon-wide event), from the containers table.
QByteArray eventColumns();
// Without output, the code and output columns are selected as empty blobs: lists never load megabytes. The
// first RunCodeHeadBytes of the code are always selected (RunRecord::codeHead), and the container's name and
// origin.
constexpr int RunCodeHeadBytes = 2048;
QByteArray runColumns(bool withOutput);
// A WhereClause condition: the row's container has the bound origin (a row without one counts as the user's).
extern const char ContainerOriginIs[];
// The same for an event; a daemon-wide event (no container) has the origin its detail names, e.g. an audit's
// own test secret set and removed.
extern const char EventOriginIs[];

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
