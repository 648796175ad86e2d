// SPDX-License-Identifier: MIT
#include "policy/canonicaljson.h"

#include "policy/jsonfields.h"
#include "sandbox/json.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLocale>
#include <QStringList>

namespace Cordon::Policy {

namespace {

// The escaping RFC 8785 asks for is the one jsonQuote() writes (and promises to keep).
void appendString(QByteArray &out, const QString &text)
{
    out += QByteArray::fromStdString(jsonQuote(text.toStdString()));
}

void appendValue(QByteArray &out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out += "null";
        break;
    case QJsonValue::Bool:
        out += value.toBool() ? "true" : "false";
        break;
    case QJsonValue::Double: {
        qint64 integer = 0;
        // Policies hold integers only; the fallback keeps the function total and deterministic.
        if (Json::isIntegral(value, &integer) && value.toVariant().userType() == QMetaType::LongLong)
            out += QByteArray::number(integer);
        else
            out += QByteArray::number(value.toDouble(), 'g', QLocale::FloatingPointShortest);
        break;
    }
    case QJsonValue::String:
        appendString(out, value.toString());
        break;
    case QJsonValue::Array: {
        out += '[';
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (i > 0)
                out += ',';
            appendValue(out, array.at(i));
        }
        out += ']';
        break;
    }
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        QStringList keys = object.keys();
        // QString's operator< compares UTF-16 code units, which is the order RFC 8785 asks for.
        std::sort(keys.begin(), keys.end());
        out += '{';
        for (qsizetype i = 0; i < keys.size(); ++i) {
            if (i > 0)
                out += ',';
            appendString(out, keys.at(i));
            out += ':';
            appendValue(out, object.value(keys.at(i)));
        }
        out += '}';
        break;
    }
    }
}

} // namespace

QByteArray toCanonicalJson(const QJsonValue &value)
{
    QByteArray out;
    appendValue(out, value);
    return out;
}

} // namespace Cordon::Policy
