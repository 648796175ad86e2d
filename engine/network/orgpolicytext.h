// SPDX-License-Identifier: MIT
// The organisation allowlist file as its user wrote it: saving a new list from the editor replaces the text
// of its "allowed_domains" array only, so that the other keys, their order, the indentation and every entry
// that stays keep the bytes they had (a rule object written over several lines stays so). New entries are
// written in the array's own style: one per line with its indentation, or all on one line.
#pragma once

#include <QByteArray>
#include <QJsonArray>

#include <optional>

namespace Cordon::Network {

// The file's text with "allowed_domains" set to `domains`; nullopt when the text is not a JSON object with
// that key at its top level (the caller then writes the file anew). The result is not validated here: the
// caller reads it back with the loader's parser before writing it.
std::optional<QByteArray> withAllowedDomains(const QByteArray &text, const QJsonArray &domains);

} // namespace Cordon::Network
