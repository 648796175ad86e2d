// SPDX-License-Identifier: MIT
#include "policy/jsonfields.h"

#include <QStringList>

#include <cmath>
#include <limits>

namespace Cordon::Policy::Json {

namespace {

bool isIdentifier(const QString &key)
{
    if (key.isEmpty())
        return false;
    for (qsizetype i = 0; i < key.size(); ++i) {
        const char16_t c = key.at(i).unicode();
        const bool letter = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || c == u'_';
        const bool digit = c >= u'0' && c <= u'9';
        if (!letter && !(digit && i > 0))
            return false;
    }
    return true;
}

} // namespace

QString childPath(const QString &parent, const QString &key)
{
    if (!isIdentifier(key))
        return parent + u'[' + quoted(key) + u']';
    return parent.isEmpty() ? key : parent + u'.' + key;
}

QString indexPath(const QString &parent, qsizetype index)
{
    return parent + u'[' + QString::number(index) + u']';
}

QString at(const QString &path, const QString &message)
{
    return (path.isEmpty() ? QStringLiteral("policy") : path) + QStringLiteral(": ") + message;
}

QString quoted(const QString &text)
{
    constexpr qsizetype MaxShown = 80;
    QString out = QStringLiteral("\"");
    for (qsizetype i = 0; i < text.size() && i < MaxShown; ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            out += c;
            out += text.at(++i);
        } else if (c == u'"' || c == u'\\') {
            out += u'\\' + QString(c);
        } else if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format ||
                   c.isSurrogate()) {
            // Invisible or terminal-controlling characters are shown, not sent to someone's terminal.
            out += QStringLiteral("\\u") + QStringLiteral("%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        } else {
            out += c;
        }
    }
    if (text.size() > MaxShown)
        out += QStringLiteral("...");
    return out + u'"';
}

QString typeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("boolean");
    case QJsonValue::Double:
        return isIntegral(value) ? QStringLiteral("integer") : QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

Result<QJsonObject> toObject(const QJsonValue &value, const QString &path)
{
    if (!value.isObject())
        return fail(QStringLiteral("policy.wrong_type"),
                    at(path, QStringLiteral("must be an object, got ") + typeName(value)));
    return value.toObject();
}

Result<QJsonArray> toArray(const QJsonValue &value, const QString &path, qsizetype maxEntries)
{
    if (!value.isArray())
        return fail(QStringLiteral("policy.wrong_type"),
                    at(path, QStringLiteral("must be an array, got ") + typeName(value)));
    QJsonArray array = value.toArray();
    if (array.size() > maxEntries)
        return fail(
            QStringLiteral("policy.out_of_range"),
            at(path,
               QStringLiteral("must have at most %1 entries, got %2").arg(maxEntries).arg(array.size())));
    return array;
}

Result<QString> toString(const QJsonValue &value, const QString &path, qsizetype maxLength)
{
    if (!value.isString())
        return fail(QStringLiteral("policy.wrong_type"),
                    at(path, QStringLiteral("must be a string, got ") + typeName(value)));
    QString text = value.toString();
    // Our own reader refuses these; a document that QJsonDocument parsed may still carry them.
    if (!QStringView(text).isValidUtf16())
        return fail(QStringLiteral("policy.invalid_json"),
                    at(path, QStringLiteral("contains an unpaired surrogate")));
    if (text.size() > maxLength)
        return fail(
            QStringLiteral("policy.out_of_range"),
            at(path,
               QStringLiteral("must be at most %1 characters, got %2").arg(maxLength).arg(text.size())));
    return text;
}

Result<bool> toBool(const QJsonValue &value, const QString &path)
{
    if (!value.isBool())
        return fail(QStringLiteral("policy.wrong_type"),
                    at(path, QStringLiteral("must be true or false, got ") + typeName(value)));
    return value.toBool();
}

bool isIntegral(const QJsonValue &value, qint64 *out)
{
    if (!value.isDouble())
        return false;
    // Integer literals that fit in qint64 are stored exactly; going through double would round 2^53 + 1.
    if (value.toVariant().userType() == QMetaType::LongLong) {
        if (out)
            *out = value.toInteger();
        return true;
    }
    const double number = value.toDouble();
    if (!std::isfinite(number) || std::trunc(number) != number)
        return false;
    // Integral but beyond qint64 (1e300): report it as integral, clamped, so that bounds reject it.
    if (out) {
        if (number >= 9.2e18)
            *out = std::numeric_limits<qint64>::max();
        else if (number <= -9.2e18)
            *out = std::numeric_limits<qint64>::min();
        else
            *out = static_cast<qint64>(number);
    }
    return true;
}

Result<qint64> toInteger(const QJsonValue &value, const QString &path, qint64 min, qint64 max)
{
    qint64 number = 0;
    if (!isIntegral(value, &number)) {
        const QString got = value.isDouble() ? QString::number(value.toDouble(), 'g', 17) : typeName(value);
        return fail(QStringLiteral("policy.wrong_type"),
                    at(path, QStringLiteral("must be an integer, got ") + got));
    }
    if (number < min || number > max) {
        const QString got = value.toVariant().userType() == QMetaType::LongLong
                                ? QString::number(number)
                                : QString::number(value.toDouble(), 'g', 17);
        return fail(QStringLiteral("policy.out_of_range"),
                    at(path, QStringLiteral("must be between %1 and %2, got %3").arg(min).arg(max).arg(got)));
    }
    return number;
}

Result<void> checkKeys(const QJsonObject &object, const QString &path,
                       std::initializer_list<QLatin1StringView> known)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        bool isKnown = false;
        for (QLatin1StringView key : known)
            isKnown = isKnown || it.key() == key;
        if (isKnown)
            continue;
        QStringList names;
        for (QLatin1StringView key : known)
            names.append(QString(key));
        names.sort();
        return fail(QStringLiteral("policy.unknown_key"),
                    at(childPath(path, it.key()), QStringLiteral("unknown key (known keys: ") +
                                                      names.join(QStringLiteral(", ")) + u')'));
    }
    return {};
}

Result<QJsonValue> required(const QJsonObject &object, const QString &path, QLatin1StringView key)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return fail(QStringLiteral("policy.missing_key"),
                    at(childPath(path, QString(key)), QStringLiteral("is required")));
    return value;
}

Result<void> readInteger(const QJsonObject &object, const QString &path, QLatin1StringView key, qint64 min,
                         qint64 max, int &out)
{
    Q_ASSERT(min >= std::numeric_limits<int>::min() && max <= std::numeric_limits<int>::max());
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return {};
    const Result<qint64> number = toInteger(value, childPath(path, QString(key)), min, max);
    if (!number)
        return fail(number.error());
    out = static_cast<int>(*number);
    return {};
}

Result<void> readBool(const QJsonObject &object, const QString &path, QLatin1StringView key, bool &out)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return {};
    const Result<bool> flag = toBool(value, childPath(path, QString(key)));
    if (!flag)
        return fail(flag.error());
    out = *flag;
    return {};
}

} // namespace Cordon::Policy::Json
