// SPDX-License-Identifier: MIT
// A recorded event (`history.events`, the `event` push) in one line of words: "Started", "Run
// 3f2a41c0cafe0123 ended: nonzero_exit · exit 3 (1.2 s)", "CONNECT pypi.org:443 denied: not in the allowlist
// (403)". The workbench's timeline and `cordon events` print the same line. Names written by code in a
// container are shown escaped (Format::displayName), so a name cannot reorder or hide the text around it.
#pragma once

#include <QJsonObject>
#include <QString>

namespace Cordon::EventWords {

QString describe(const QJsonObject &event);
// A network decision's detail: "CONNECT pypi.org:443" and what came of it.
QString network(const QJsonObject &detail);

} // namespace Cordon::EventWords
