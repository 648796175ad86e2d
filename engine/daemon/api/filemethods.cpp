// SPDX-License-Identifier: MIT
// file.*: uploads into a container's inputs, listings, downloads of its artifacts, deletions.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"

namespace Cordon::Api {

namespace {

// file.download's `existing`: what a name already at the destination gets.
Result<Files::ExistingName> existingNames(const QJsonObject &params)
{
    auto word = optionalString(params, QStringLiteral("existing"));
    if (!word)
        return fail(word.error());
    if (word->isEmpty() || *word == QLatin1String("refuse"))
        return Files::ExistingName::Refuse;
    if (*word == QLatin1String("replace"))
        return Files::ExistingName::Replace;
    if (*word == QLatin1String("keep_both"))
        return Files::ExistingName::KeepBoth;
    return fail(invalidParams(QStringLiteral("`existing` must be refuse, replace or keep_both")));
}

// The parameters every method but upload takes: the container, a scope (inputs, outputs, workspace) and a
// path below it.
struct FileTarget
{
    QString container;
    QString scope;
    QString path;
};

Result<FileTarget> fileTarget(const QJsonObject &params)
{
    auto container = requireString(params, QStringLiteral("container"));
    auto scope = optionalString(params, QStringLiteral("scope"));
    auto path = optionalString(params, QStringLiteral("path"));
    if (!container || !scope || !path)
        return fail(!container ? container.error() : !scope ? scope.error() : path.error());
    return FileTarget{*container, *scope, *path};
}

Result<QJsonObject> upload(ApiContext &context, const QJsonObject &params)
{
    auto container = requireString(params, QStringLiteral("container"));
    auto name = requireString(params, QStringLiteral("name"));
    auto path = optionalString(params, QStringLiteral("path"));
    auto content = optionalBase64(params, QStringLiteral("content"));
    if (!container || !name || !path || !content)
        return fail(!container ? container.error()
                    : !name    ? name.error()
                    : !path    ? path.error()
                               : content.error());
    if (path->isEmpty() == !content->has_value())
        return fail(invalidParams(QStringLiteral("give exactly one of `path` and `content`")));
    auto file = context.manager.upload(*container, *name, *path, *content);
    if (!file)
        return fail(file.error());
    return wrap(QStringLiteral("file"), fileToJson(*file, QStringLiteral("inputs")));
}

Result<QJsonObject> list(ApiContext &context, const QJsonObject &params)
{
    auto target = fileTarget(params);
    if (!target)
        return fail(target.error());
    auto listing = context.manager.listFiles(target->container, target->scope);
    if (!listing)
        return fail(listing.error());
    return fileListingToJson(*listing);
}

Result<QJsonObject> remove(ApiContext &context, const QJsonObject &params)
{
    auto target = fileTarget(params);
    if (!target)
        return fail(target.error());
    CORDON_TRY(context.manager.deleteFile(target->container,
                                          target->scope.isEmpty() ? QStringLiteral("outputs") : target->scope,
                                          target->path));
    return QJsonObject{};
}

Result<QJsonObject> download(ApiContext &context, const QJsonObject &params)
{
    auto target = fileTarget(params);
    auto destination = requireString(params, QStringLiteral("destination"));
    auto existing = existingNames(params);
    if (!target || !destination || !existing)
        return fail(!target ? target.error() : !destination ? destination.error() : existing.error());
    auto download =
        context.manager.download(target->container, target->scope, target->path, *destination, *existing);
    if (!download)
        return fail(download.error());
    return fileDownloadToJson(*download);
}

} // namespace

void addFileMethods(MethodTable &table)
{
    table.add(QStringLiteral("file.upload"),
              {QStringLiteral("container"), QStringLiteral("name"), QStringLiteral("path"),
               QStringLiteral("content")},
              upload);
    table.add(QStringLiteral("file.list"),
              {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path")}, list);
    table.add(QStringLiteral("file.delete"),
              {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path")}, remove);
    table.add(QStringLiteral("file.download"),
              {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path"),
               QStringLiteral("destination"), QStringLiteral("existing")},
              download);
}

} // namespace Cordon::Api
