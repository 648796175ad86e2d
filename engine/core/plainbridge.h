// SPDX-License-Identifier: MIT
// The conversions Qt code needs at the edge of the sandbox library (engine/sandbox), which speaks UTF-8
// std::string and byte views: one place for them, so no file exists only to convert types.
#pragma once

#include "sandbox/json.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <string>
#include <string_view>
#include <sys/types.h>

namespace Cordon {

inline QString toQt(std::string_view utf8)
{
    return QString::fromUtf8(utf8.data(), static_cast<qsizetype>(utf8.size()));
}

// An exact match for std::string, which would otherwise be ambiguous with toQt(const Json &).
inline QString toQt(const std::string &utf8)
{
    return toQt(std::string_view(utf8));
}

inline QString toQt(const char *utf8)
{
    return toQt(std::string_view(utf8));
}

inline std::string toPlain(const QString &text)
{
    return text.toStdString();
}

// A view of the bytes: valid as long as they are (a temporary lives to the end of the full expression).
inline std::string_view toPlain(QByteArrayView bytes)
{
    return {bytes.data(), static_cast<std::size_t>(bytes.size())};
}

inline std::string_view toPlain(const QByteArray &bytes)
{
    return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

// The same JSON value for code shared with the launcher (the client's wording, daemon/lite), converted
// member by member: integers Qt read as integers stay exact.
Json toPlain(const QJsonValue &value);
Json toPlain(const QJsonObject &object);
// And back, for the sandbox library's documents (a policy's toJson()) in a Qt reply.
QJsonValue toQt(const Json &value);

// The user's name from the password database (NSS, so LDAP and sssd users too), for the advice of a cgroup
// error: what the Qt programs pass to Cgroup::detectBackend() and inspectHost(). The static launcher cannot
// ask NSS and passes nothing.
std::string userNameFromNss(uid_t uid);

} // namespace Cordon
