// SPDX-License-Identifier: MIT
#include "policy/containerpolicy.h"

#include "policy/canonicaljson.h"
#include "policy/jsonfields.h"
#include "policy/strictjson.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QStringList>

namespace Cordon::Policy {

namespace {

using Json::at;
using Json::childPath;
using Json::indexPath;

constexpr int MaxExpiryMinutes = 7 * 24 * 60;

bool isNameCharacter(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') || u == u'.' ||
           u == u'_' || u == u'-';
}

bool isEnvName(const QString &name)
{
    if (name.isEmpty())
        return false;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const char16_t u = name.at(i).unicode();
        const bool letter = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || u == u'_';
        if (!letter && !(i > 0 && u >= u'0' && u <= u'9'))
            return false;
    }
    return true;
}

Result<QString> readName(const QJsonValue &value)
{
    const QString path = QStringLiteral("name");
    const Result<QString> name = Json::toString(value, path, MaxNameLength);
    if (!name)
        return name;
    if (name->isEmpty())
        return fail(QStringLiteral("policy.out_of_range"), at(path, QStringLiteral("must not be empty")));
    for (QChar c : *name) {
        if (!isNameCharacter(c))
            return fail(
                QStringLiteral("policy.invalid_name"),
                at(path, QStringLiteral("may only contain A-Z, a-z, 0-9, \".\", \"_\" and \"-\", got ") +
                             Json::quoted(*name)));
    }
    // The name may end up in a path or a file name; "." and ".." would mean a directory, not a container.
    if (*name == u"." || *name == u"..")
        return fail(QStringLiteral("policy.invalid_name"),
                    at(path, QStringLiteral("must not be \".\" or \"..\"")));
    return name;
}

Result<qint64> readMemoryLimit(const QJsonValue &value)
{
    const QString path = QStringLiteral("memory_limit");
    if (value.isString()) {
        const Result<qint64> bytes = parseMemoryLimit(value.toString().toStdString());
        if (!bytes)
            return fail(bytes.error().wrap(toPlain(path)));
        return bytes;
    }
    qint64 number = 0;
    if (Json::isIntegral(value, &number)) {
        if (number >= MinMemoryLimitBytes && number <= MaxMemoryLimitBytes)
            return number;
        // 1e300 is integral too; show it as written rather than clamped to qint64.
        const bool exact = value.toVariant().userType() == QMetaType::LongLong;
        return fail(
            QStringLiteral("policy.invalid_memory_limit"),
            at(path, toQt(memoryLimitRule()) + QStringLiteral(", got ") +
                         (exact ? QString::number(number) : QString::number(value.toDouble(), 'g', 17))));
    }
    return fail(
        QStringLiteral("policy.wrong_type"),
        at(path,
           QStringLiteral("must be a tier string (\"1g\", \"4g\", \"16g\", \"64g\") or an integer byte "
                          "count, got ") +
               (value.isDouble() ? QString::number(value.toDouble(), 'g', 17) : Json::typeName(value))));
}

Result<ExpiresAfter> readExpiresAfter(const QJsonValue &value)
{
    const QString path = QStringLiteral("expires_after");
    const Result<QJsonObject> object = Json::toObject(value, path);
    if (!object)
        return fail(object.error());
    CORDON_TRY(Json::checkKeys(*object, path, {QLatin1StringView("anchor"), QLatin1StringView("minutes")}));
    ExpiresAfter expires;
    if (const QJsonValue anchorValue = object->value(QLatin1StringView("anchor"));
        !anchorValue.isUndefined()) {
        const QString anchorPath = childPath(path, QStringLiteral("anchor"));
        const Result<QString> anchor = Json::toString(anchorValue, anchorPath, 64);
        if (!anchor)
            return fail(anchor.error());
        if (*anchor != expires.anchor)
            return fail(
                QStringLiteral("policy.invalid_value"),
                at(anchorPath, QStringLiteral("must be \"last_active_at\", got ") + Json::quoted(*anchor)));
    }
    CORDON_TRY(
        Json::readInteger(*object, path, QLatin1StringView("minutes"), 1, MaxExpiryMinutes, expires.minutes));
    return expires;
}

Result<Limits> readLimits(const QJsonValue &value)
{
    const QString path = QStringLiteral("limits");
    const Result<QJsonObject> object = Json::toObject(value, path);
    if (!object)
        return fail(object.error());
    CORDON_TRY(Json::checkKeys(*object, path,
                               {QLatin1StringView("run_timeout_s"), QLatin1StringView("pids"),
                                QLatin1StringView("tmp_mb"), QLatin1StringView("workspace_mb"),
                                QLatin1StringView("output_mb")}));
    Limits limits;
    CORDON_TRY(
        Json::readInteger(*object, path, QLatin1StringView("run_timeout_s"), 1, 86400, limits.runTimeoutS));
    CORDON_TRY(Json::readInteger(*object, path, QLatin1StringView("pids"), 1, 65536, limits.pids));
    CORDON_TRY(Json::readInteger(*object, path, QLatin1StringView("tmp_mb"), 1, 65536, limits.tmpMb));
    CORDON_TRY(
        Json::readInteger(*object, path, QLatin1StringView("workspace_mb"), 1, 1048576, limits.workspaceMb));
    CORDON_TRY(Json::readInteger(*object, path, QLatin1StringView("output_mb"), 1, 4096, limits.outputMb));
    return limits;
}

// Absolute, without "..", with "//", "." and a trailing "/" removed.
Result<QString> normaliseMountPath(const QString &text, const QString &path)
{
    if (text.isEmpty())
        return fail(QStringLiteral("policy.invalid_mount"), at(path, QStringLiteral("must not be empty")));
    for (QChar c : text) {
        // NUL would cut the path short in the kernel; newlines and other controls break mountinfo and logs.
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return fail(QStringLiteral("policy.invalid_mount"),
                        at(path, QStringLiteral("contains a control character")));
    }
    if (!text.startsWith(u'/'))
        return fail(QStringLiteral("policy.invalid_mount"),
                    at(path, QStringLiteral("must be an absolute path, got ") + Json::quoted(text)));
    QStringList segments;
    for (const QString &segment : text.split(u'/', Qt::SkipEmptyParts)) {
        // Rejected, not resolved: what ".." means depends on symlinks on the host, which we do not follow
        // here.
        if (segment == u"..")
            return fail(QStringLiteral("policy.invalid_mount"),
                        at(path, QStringLiteral("must not contain \"..\", got ") + Json::quoted(text)));
        if (segment != u".")
            segments.append(segment);
    }
    return u'/' + segments.join(u'/');
}

bool isBeneath(const QString &child, const QString &parent)
{
    return child.size() > parent.size() + 1 && child.startsWith(parent) && child.at(parent.size()) == u'/';
}

Result<Mount> readMount(const QJsonValue &value, const QString &path)
{
    const Result<QJsonObject> object = Json::toObject(value, path);
    if (!object)
        return fail(object.error());
    CORDON_TRY(Json::checkKeys(
        *object, path,
        {QLatin1StringView("host"), QLatin1StringView("target"), QLatin1StringView("read_only")}));
    Mount mount;
    for (auto [key, field] : {std::pair{QLatin1StringView("host"), &mount.host},
                              std::pair{QLatin1StringView("target"), &mount.target}}) {
        const QString fieldPath = childPath(path, QString(key));
        const Result<QJsonValue> fieldValue = Json::required(*object, path, key);
        if (!fieldValue)
            return fail(fieldValue.error());
        const Result<QString> text = Json::toString(*fieldValue, fieldPath, MaxMountPathLength);
        if (!text)
            return fail(text.error());
        const Result<QString> normalised = normaliseMountPath(*text, fieldPath);
        if (!normalised)
            return fail(normalised.error());
        *field = *normalised;
    }
    // /mnt/data is the workspace with its own inputs/ and outputs/ mounts; a policy must not cover or enter
    // it.
    const QString targetPath = childPath(path, QStringLiteral("target"));
    const QString workspace = QStringLiteral("/mnt/data");
    if (mount.target == workspace || isBeneath(mount.target, workspace))
        return fail(
            QStringLiteral("policy.invalid_mount"),
            at(targetPath, QStringLiteral("/mnt/data is the workspace; choose another directory under /mnt/ "
                                          "or /opt/, got ") +
                               Json::quoted(mount.target)));
    if (!isBeneath(mount.target, QStringLiteral("/mnt")) && !isBeneath(mount.target, QStringLiteral("/opt")))
        return fail(QStringLiteral("policy.invalid_mount"),
                    at(targetPath, QStringLiteral("must be a directory under /mnt/ or /opt/, got ") +
                                       Json::quoted(mount.target)));
    CORDON_TRY(Json::readBool(*object, path, QLatin1StringView("read_only"), mount.readOnly));
    return mount;
}

Result<QList<Mount>> readMounts(const QJsonValue &value)
{
    const QString path = QStringLiteral("mounts");
    const Result<QJsonArray> array = Json::toArray(value, path, MaxMounts);
    if (!array)
        return fail(array.error());
    QList<Mount> mounts;
    for (qsizetype i = 0; i < array->size(); ++i) {
        const QString itemPath = indexPath(path, i);
        Result<Mount> mount = readMount(array->at(i), itemPath);
        if (!mount)
            return fail(mount.error());
        for (const Mount &earlier : std::as_const(mounts)) {
            if (earlier.target == mount->target)
                return fail(QStringLiteral("policy.invalid_mount"),
                            at(childPath(itemPath, QStringLiteral("target")),
                               Json::quoted(mount->target) + QStringLiteral(" is already a mount target")));
            // The inner mount point would have to be created inside the outer mount's host directory, on the
            // host; and the order of the two mounts would decide which one wins.
            if (isBeneath(earlier.target, mount->target) || isBeneath(mount->target, earlier.target))
                return fail(QStringLiteral("policy.invalid_mount"),
                            at(childPath(itemPath, QStringLiteral("target")),
                               Json::quoted(mount->target) + QStringLiteral(" and ") +
                                   Json::quoted(earlier.target) +
                                   QStringLiteral(" are nested; mount targets must not contain each other")));
        }
        mounts.append(std::move(*mount));
    }
    return mounts;
}

Result<QMap<QString, QString>> readEnv(const QJsonValue &value)
{
    const QString path = QStringLiteral("env");
    const Result<QJsonObject> object = Json::toObject(value, path);
    if (!object)
        return fail(object.error());
    if (object->size() > MaxEnvEntries)
        return fail(QStringLiteral("policy.out_of_range"),
                    at(path, QStringLiteral("must have at most %1 variables, got %2")
                                 .arg(MaxEnvEntries)
                                 .arg(object->size())));
    QMap<QString, QString> env;
    for (auto it = object->begin(); it != object->end(); ++it) {
        const QString itemPath = childPath(path, it.key());
        if (it.key().size() > MaxEnvNameLength)
            return fail(
                QStringLiteral("policy.out_of_range"),
                at(itemPath, QStringLiteral("the name must be at most %1 characters").arg(MaxEnvNameLength)));
        if (!isEnvName(it.key()))
            return fail(QStringLiteral("policy.invalid_env"),
                        at(itemPath, QStringLiteral("the name must match [A-Za-z_][A-Za-z0-9_]*")));
        const Result<QString> text = Json::toString(it.value(), itemPath, MaxEnvValueBytes);
        if (!text)
            return fail(text.error());
        // execve() takes C strings: a NUL would silently cut the value short.
        if (text->contains(QChar(0)))
            return fail(QStringLiteral("policy.invalid_env"),
                        at(itemPath, QStringLiteral("the value contains a NUL character")));
        const qsizetype bytes = text->toUtf8().size();
        if (bytes > MaxEnvValueBytes)
            return fail(QStringLiteral("policy.out_of_range"),
                        at(itemPath, QStringLiteral("the value must be at most %1 bytes, got %2")
                                         .arg(MaxEnvValueBytes)
                                         .arg(bytes)));
        env.insert(it.key(), *text);
    }
    return env;
}

} // namespace

Result<ContainerPolicy> ContainerPolicy::fromJson(QByteArrayView json)
{
    const Result<QJsonValue> document = parseStrictJson(json);
    if (!document)
        return fail(document.error());
    if (!document->isObject())
        return fail(QStringLiteral("policy.wrong_type"),
                    at(QString(), QStringLiteral("the document must be a JSON object, got ") +
                                      Json::typeName(*document)));
    return fromJsonObject(document->toObject());
}

Result<ContainerPolicy> ContainerPolicy::fromJsonObject(const QJsonObject &object)
{
    CORDON_TRY(Json::checkKeys(object, QString(),
                               {QLatin1StringView("name"), QLatin1StringView("memory_limit"),
                                QLatin1StringView("expires_after"), QLatin1StringView("network_policy"),
                                QLatin1StringView("limits"), QLatin1StringView("mounts"),
                                QLatin1StringView("env"), QLatin1StringView("allow_ptrace")}));
    ContainerPolicy policy;
    // Each optional field: absent keeps the default, present must be valid.
    auto read = [&object](QLatin1StringView key, auto reader, auto &out) -> Result<void> {
        const QJsonValue value = object.value(key);
        if (value.isUndefined())
            return {};
        auto result = reader(value);
        if (!result)
            return fail(result.error());
        out = std::move(*result);
        return {};
    };
    CORDON_TRY(read(QLatin1StringView("name"), readName, policy.name));
    CORDON_TRY(read(QLatin1StringView("memory_limit"), readMemoryLimit, policy.memoryLimitBytes));
    CORDON_TRY(read(QLatin1StringView("expires_after"), readExpiresAfter, policy.expiresAfter));
    CORDON_TRY(read(
        QLatin1StringView("network_policy"),
        [](const QJsonValue &value) {
            return NetworkPolicy::fromJsonValue(value, QStringLiteral("network_policy"));
        },
        policy.network));
    CORDON_TRY(read(QLatin1StringView("limits"), readLimits, policy.limits));
    CORDON_TRY(read(QLatin1StringView("mounts"), readMounts, policy.mounts));
    CORDON_TRY(read(QLatin1StringView("env"), readEnv, policy.env));
    CORDON_TRY(Json::readBool(object, QString(), QLatin1StringView("allow_ptrace"), policy.allowPtrace));
    return policy;
}

QJsonObject ContainerPolicy::toJsonObject() const
{
    QJsonArray mountArray;
    for (const Mount &mount : mounts) {
        mountArray.append(QJsonObject{{QStringLiteral("host"), mount.host},
                                      {QStringLiteral("target"), mount.target},
                                      {QStringLiteral("read_only"), mount.readOnly}});
    }
    QJsonObject envObject;
    for (auto it = env.begin(); it != env.end(); ++it)
        envObject.insert(it.key(), it.value());
    // A tier is written as its name so that stored policies stay readable; any other size as a byte count.
    const QJsonValue memory = isMemoryTier(memoryLimitBytes)
                                  ? QJsonValue(toQt(formatMemoryLimit(memoryLimitBytes)))
                                  : QJsonValue(memoryLimitBytes);
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("memory_limit"), memory},
        {QStringLiteral("expires_after"), QJsonObject{{QStringLiteral("anchor"), expiresAfter.anchor},
                                                      {QStringLiteral("minutes"), expiresAfter.minutes}}},
        {QStringLiteral("network_policy"), network.toJsonObject()},
        {QStringLiteral("limits"), QJsonObject{{QStringLiteral("run_timeout_s"), limits.runTimeoutS},
                                               {QStringLiteral("pids"), limits.pids},
                                               {QStringLiteral("tmp_mb"), limits.tmpMb},
                                               {QStringLiteral("workspace_mb"), limits.workspaceMb},
                                               {QStringLiteral("output_mb"), limits.outputMb}}},
        {QStringLiteral("mounts"), mountArray},
        {QStringLiteral("env"), envObject},
        {QStringLiteral("allow_ptrace"), allowPtrace},
    };
}

QByteArray ContainerPolicy::canonicalJson() const
{
    return toCanonicalJson(toJsonObject());
}

QString ContainerPolicy::version() const
{
    return QString::fromLatin1(QCryptographicHash::hash(canonicalJson(), QCryptographicHash::Sha256).toHex());
}

Result<ContainerPolicy> ContainerPolicy::validated() const
{
    // One set of rules: the canonical form goes through the same reader as any document.
    return fromJson(canonicalJson());
}

} // namespace Cordon::Policy
