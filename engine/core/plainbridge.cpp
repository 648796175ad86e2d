// SPDX-License-Identifier: MIT
#include "core/plainbridge.h"

#include <QJsonArray>
#include <QVariant>

#include <pwd.h>

namespace Cordon {

Json toPlain(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return Json(nullptr);
    case QJsonValue::Bool:
        return Json(value.toBool());
    case QJsonValue::Double:
        // Qt keeps an integer literal that fits in 64 bits as one; everything else is a double.
        if (value.toVariant().userType() == QMetaType::LongLong)
            return Json(static_cast<std::int64_t>(value.toInteger()));
        return Json(value.toDouble());
    case QJsonValue::String:
        return Json(value.toString().toStdString());
    case QJsonValue::Array: {
        Json::Array items;
        const QJsonArray array = value.toArray();
        items.reserve(static_cast<std::size_t>(array.size()));
        for (const QJsonValue &item : array)
            items.push_back(toPlain(item));
        return Json(std::move(items));
    }
    case QJsonValue::Object:
        return toPlain(value.toObject());
    case QJsonValue::Undefined:
        break;
    }
    return Json();
}

Json toPlain(const QJsonObject &object)
{
    Json json = Json::object();
    for (auto it = object.begin(); it != object.end(); ++it)
        json.insert(it.key().toStdString(), toPlain(it.value()));
    return json;
}

QJsonValue toQt(const Json &value)
{
    switch (value.type()) {
    case Json::Type::Null:
        return QJsonValue(QJsonValue::Null);
    case Json::Type::Bool:
        return value.toBool();
    case Json::Type::Number:
        if (value.isExactInteger())
            return static_cast<qint64>(value.toInteger());
        return value.toDouble();
    case Json::Type::String:
        return toQt(std::string_view(value.toString()));
    case Json::Type::Array: {
        QJsonArray array;
        for (const Json &item : value.items())
            array.append(toQt(item));
        return array;
    }
    case Json::Type::Object: {
        QJsonObject object;
        for (const auto &[key, member] : value.members())
            object.insert(toQt(std::string_view(key)), toQt(member));
        return object;
    }
    case Json::Type::Undefined:
        break;
    }
    return QJsonValue(QJsonValue::Undefined);
}

std::string userNameFromNss(uid_t uid)
{
    const passwd *pw = ::getpwuid(uid);
    return pw ? std::string(pw->pw_name) : std::to_string(uid);
}

} // namespace Cordon
