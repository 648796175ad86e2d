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

void upload(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto container = requireString(params, QStringLiteral("container"));
    auto name = requireString(params, QStringLiteral("name"));
    auto path = optionalString(params, QStringLiteral("path"));
    auto content = optionalBase64(params, QStringLiteral("content"));
    if (!container || !name || !path || !content)
        return respond(fail(!container ? container.error()
                            : !name    ? name.error()
                            : !path    ? path.error()
                                       : content.error()));
    if (path->isEmpty() == !content->has_value())
        return respond(fail(invalidParams(QStringLiteral("give exactly one of `path` and `content`"))));
    context.manager.upload(*container, *name, *path, *content, [respond](Result<Files::CopiedFile> file) {
        if (!file)
            return respond(fail(file.error()));
        respond(wrap(QStringLiteral("file"), fileToJson(*file, QStringLiteral("inputs"))));
    });
}

void list(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto target = fileTarget(params);
    if (!target)
        return respond(fail(target.error()));
    context.manager.listFiles(target->container, target->scope,
                              [respond](Result<Containers::FileReport> listing) {
                                  if (!listing)
                                      return respond(fail(listing.error()));
                                  respond(fileListingToJson(*listing));
                              });
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

void download(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto target = fileTarget(params);
    auto destination = requireString(params, QStringLiteral("destination"));
    auto existing = existingNames(params);
    if (!target || !destination || !existing)
        return respond(fail(!target        ? target.error()
                            : !destination ? destination.error()
                                           : existing.error()));
    // Files the artifact scan would block are saved anyway with a reason, which the events keep.
    const QJsonValue overrideReason = params.value(QStringLiteral("override_reason"));
    if (!overrideReason.isUndefined() &&
        (!overrideReason.isString() || overrideReason.toString().trimmed().isEmpty()))
        return respond(fail(invalidParams(QStringLiteral("`override_reason` must be a non-empty string"))));
    context.manager.download(
        target->container, target->scope, target->path, *destination, *existing,
        [respond](Result<Containers::FileReport> download) {
            if (!download)
                return respond(fail(download.error()));
            respond(fileDownloadToJson(*download));
        },
        overrideReason.toString().trimmed());
}

} // namespace

void addFileMethods(MethodTable &table)
{
    table.addDeferred(QStringLiteral("file.upload"),
                      {QStringLiteral("container"), QStringLiteral("name"), QStringLiteral("path"),
                       QStringLiteral("content")},
                      upload);
    table.addDeferred(QStringLiteral("file.list"),
                      {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path")}, list);
    table.add(QStringLiteral("file.delete"),
              {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path")}, remove);
    table.addDeferred(QStringLiteral("file.download"),
                      {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path"),
                       QStringLiteral("destination"), QStringLiteral("existing"),
                       QStringLiteral("override_reason")},
                      download);
}

} // namespace Cordon::Api
