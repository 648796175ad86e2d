// SPDX-License-Identifier: MIT
// The forms of a secret's value that the masker documents (docs/secrets.md: lower-cased, JSON-escaped three
// ways, percent-encoded, hex, base64 and base64url at three alignments), computed here independently of the
// masker, so that the credentials row checks the masker against the documentation rather than against itself.
// cordon-audit-probe's `leak-encoded` prints the same forms under the same labels.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace Cordon::Audit {

struct SecretForm
{
    QString label;   // "hex-upper", "base64url-2" ...: the probe's `form LABEL:` line
    QByteArray text; // the form as the probe prints it
    // What only the value decides: a base64 form without the characters it shares with the bytes around the
    // value (docs/secrets.md), which a masked output may show beside the mask.
    QByteArray decided;
};

// What an audit key ends with so that its forms all differ: an upper-case letter (the lower-cased form), `/`
// (the `\/` form), `+`, ` `, `"` and `\` (JSON- and percent-encoding, a space as %20 or +), a non-ASCII
// letter (`\uXXXX`), and
// `~~~?>`, whose bytes put a `+` or `/` in every base64 alignment (base64 and base64url then differ).
inline const QString &distinctFormsSuffix()
{
    static const QString suffix = QStringLiteral("/Q+ \"\\\u00e9~~~?>");
    return suffix;
}

// The value itself ("raw") and each of its forms, in the probe's order.
QList<SecretForm> secretForms(const QByteArray &value);

} // namespace Cordon::Audit
