// SPDX-License-Identifier: MIT
#include "daemon/api/params.h"

#include <QJsonValue>
#include <QRegularExpression>

namespace Cordon::Api {

namespace {

constexpr qsizetype MaxBase64Bytes = 12 * 1024 * 1024;

} // namespace

Error invalidParams(const QString &message)
{
    return makeError(QStringLiteral("protocol.invalid_params"), message);
}

namespace {

// A NUL ends a C string: a path or name holding one would be cut short silently where the kernel reads it.
Error nulInside(const QString &key)
{
    return invalidParams(QStringLiteral("`%1` contains a NUL character").arg(key));
}

} // namespace

Result<QString> requireString(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (!value.isString() || value.toString().isEmpty())
        return fail(invalidParams(QStringLiteral("`%1` must be a non-empty string").arg(key)));
    if (value.toString().contains(QChar(0)))
        return fail(nulInside(key));
    return value.toString();
}

Result<QString> optionalString(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return QString();
    if (!value.isString())
        return fail(invalidParams(QStringLiteral("`%1` must be a string").arg(key)));
    if (value.toString().contains(QChar(0)))
        return fail(nulInside(key));
    return value.toString();
}

Result<qint64> optionalInteger(const QJsonObject &params, const QString &key, qint64 fallback, qint64 min,
                               qint64 max)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return fallback;
    const double number = value.toDouble(-1e300);
    if (!value.isDouble() || number != static_cast<double>(static_cast<qint64>(number)) ||
        number < double(min) || number > double(max))
        return fail(invalidParams(
            QStringLiteral("`%1` must be an integer between %2 and %3").arg(key).arg(min).arg(max)));
    return static_cast<qint64>(number);
}

Result<bool> optionalBool(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return false;
    if (!value.isBool())
        return fail(invalidParams(QStringLiteral("`%1` must be true or false").arg(key)));
    return value.toBool();
}

Result<QString> optionalOrigin(const QJsonObject &params)
{
    auto origin = optionalString(params, QStringLiteral("origin"));
    if (!origin)
        return fail(origin.error());
    static const QRegularExpression auditOrigin(QStringLiteral("^audit:[A-Za-z0-9._-]{1,64}$"));
    if (!origin->isEmpty() && !auditOrigin.match(*origin).hasMatch())
        return fail(invalidParams(QStringLiteral("`origin` must be \"audit:<id>\" or absent")));
    return *origin;
}

Result<std::optional<QByteArray>> optionalBase64(const QJsonObject &params, const QString &key)
{
    const QJsonValue value = params.value(key);
    if (value.isUndefined() || value.isNull())
        return std::optional<QByteArray>();
    if (!value.isString() || value.toString().size() > MaxBase64Bytes)
        return fail(invalidParams(QStringLiteral("`%1` must be base64 text of at most 9 MiB").arg(key)));
    const auto decoded =
        QByteArray::fromBase64Encoding(value.toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return fail(invalidParams(QStringLiteral("`%1` is not valid base64").arg(key)));
    return std::optional<QByteArray>(*decoded);
}

QJsonObject wrap(const QString &key, const QJsonObject &value)
{
    return QJsonObject{{key, value}};
}

} // namespace Cordon::Api
