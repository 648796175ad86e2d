// SPDX-License-Identifier: MIT
// file.*: uploads into a container's inputs, listings, downloads of its artifacts, deletions.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"

#include "core/plainbridge.h"
#include "sandbox/scanreport.h"

namespace Cordon::Api {

namespace {

// file.download's `existing`: what a name already at the destination gets.
Result<Files::ExistingName> existingNames(const QJsonObject &params)
{
    auto word = optionalString(params, QStringLiteral("existing"));
    if (!word)
        return fail(word.error());
    if (const auto existing = Files::existingNameFromWord(word->toStdString()))
        return *existing;
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

// How many columns and rows a preview or a pseudonymisation request may name: a table, not a database.
constexpr int MaxPseudonymColumns = 1000;
constexpr int MaxPreviewRows = 50;

// `header` of a CSV request: true, false, or absent for the file's own guess.
Result<std::optional<bool>> csvHeader(const QJsonObject &params)
{
    const QJsonValue value = params.value(QStringLiteral("header"));
    if (value.isUndefined() || value.isNull())
        return std::optional<bool>();
    if (!value.isBool())
        return fail(invalidParams(QStringLiteral("`header` must be true, false or null")));
    return std::optional<bool>(value.toBool());
}

// file.upload's `pseudonymize`: {"columns": [name or position...], "header"?, "key"?} (docs/protocol.md).
Result<std::optional<Containers::PseudonymizeRequest>> pseudonymizeRequest(const QJsonObject &params)
{
    const QJsonValue value = params.value(QStringLiteral("pseudonymize"));
    if (value.isUndefined() || value.isNull())
        return std::optional<Containers::PseudonymizeRequest>();
    if (!value.isObject())
        return fail(invalidParams(QStringLiteral("`pseudonymize` must be an object with `columns`")));
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() != QLatin1String("columns") && it.key() != QLatin1String("header") &&
            it.key() != QLatin1String("key"))
            return fail(invalidParams(QStringLiteral("`pseudonymize` has no member `%1`").arg(it.key())));
    }
    Containers::PseudonymizeRequest request;
    const QJsonValue columns = object.value(QStringLiteral("columns"));
    if (!columns.isArray() || columns.toArray().isEmpty() || columns.toArray().size() > MaxPseudonymColumns)
        return fail(invalidParams(
            QStringLiteral("`pseudonymize.columns` must list 1 to %1 columns").arg(MaxPseudonymColumns)));
    for (const QJsonValue &column : columns.toArray()) {
        if (column.isString() && !column.toString().isEmpty())
            request.columns.append(column.toString());
        else if (column.isDouble() && column.toInteger(0) >= 1 && column.toInteger(0) <= 100000)
            request.positions.append(int(column.toInteger()));
        else
            return fail(invalidParams(
                QStringLiteral("each of `pseudonymize.columns` is a column name or a position from 1")));
    }
    auto header = csvHeader(object);
    auto key = optionalString(object, QStringLiteral("key"));
    if (!header || !key)
        return fail(!header ? header.error() : key.error());
    request.header = *header;
    request.key = *key;
    return std::optional<Containers::PseudonymizeRequest>(std::move(request));
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
    // U+FFFD is what a name that was not UTF-8 became on its way here: the name the user has is another,
    // and one decoded so would name a file that is not theirs.
    for (const QString *text : {&*name, &*path}) {
        if (text->contains(QChar::ReplacementCharacter))
            return respond(
                fail(QStringLiteral("files.invalid_name"),
                     QStringLiteral("`%1` holds U+FFFD: a name that was not valid UTF-8 is not taken "
                                    "in a form it does not have; rename the file")
                         .arg(*text)));
    }
    auto pseudonymize = pseudonymizeRequest(params);
    if (!pseudonymize)
        return respond(fail(pseudonymize.error()));
    context.manager.upload(
        *container, *name, *path, *content,
        [respond](Result<Containers::UploadReport> uploaded) {
            if (!uploaded)
                return respond(fail(uploaded.error()));
            QJsonObject file = fileToJson(uploaded->file, QStringLiteral("inputs"));
            if (!uploaded->pseudonymized.isEmpty())
                file.insert(QStringLiteral("pseudonymized"), uploaded->pseudonymized);
            respond(wrap(QStringLiteral("file"), file));
        },
        *pseudonymize);
}

// A CSV file on the host (or sent as content) before its upload: the dialect, the first rows and their
// pseudonyms under the key, so that a dialog can show what the container would receive.
void csvPreview(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto path = optionalString(params, QStringLiteral("path"));
    auto content = optionalBase64(params, QStringLiteral("content"));
    auto key = optionalString(params, QStringLiteral("key"));
    auto header = csvHeader(params);
    auto rows = optionalInteger(params, QStringLiteral("rows"), 10, 1, MaxPreviewRows);
    if (!path || !content || !key || !header || !rows)
        return respond(fail(!path      ? path.error()
                            : !content ? content.error()
                            : !key     ? key.error()
                            : !header  ? header.error()
                                       : rows.error()));
    if (path->isEmpty() == !content->has_value())
        return respond(fail(invalidParams(QStringLiteral("give exactly one of `path` and `content`"))));
    context.manager.previewCsv(*path, *content, *header, *key, int(*rows),
                               [respond](Result<Containers::CsvPreviewReport> preview) {
                                   if (!preview)
                                       return respond(fail(preview.error()));
                                   respond(csvPreviewToJson(*preview));
                               });
}

void list(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto target = fileTarget(params);
    if (!target)
        return respond(fail(target.error()));
    auto scan = optionalBool(params, QStringLiteral("scan"));
    if (!scan)
        return respond(fail(scan.error()));
    context.manager.listFiles(
        target->container, target->scope,
        [respond, scanned = *scan](Result<Containers::FileReport> listing) {
            if (!listing)
                return respond(fail(listing.error()));
            QJsonObject answer = fileListingToJson(*listing);
            if (scanned) {
                // Each entry also says how its name is shown (`shown`, masked) beside the name as listed.
                QJsonArray entries = toQt(Scan::toJson(listing->inspected)).toArray();
                for (qsizetype i = 0; i < entries.size() && i < qsizetype(listing->inspectedShown.size());
                     ++i) {
                    QJsonObject entry = entries.at(i).toObject();
                    entry.insert(QStringLiteral("shown"), toQt(listing->inspectedShown[std::size_t(i)]));
                    entries.replace(i, entry);
                }
                answer.insert(QStringLiteral("scanned"), entries);
            }
            respond(answer);
        },
        *scan);
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
                       QStringLiteral("content"), QStringLiteral("pseudonymize")},
                      upload);
    table.addDeferred(QStringLiteral("file.csv_preview"),
                      {QStringLiteral("path"), QStringLiteral("content"), QStringLiteral("key"),
                       QStringLiteral("header"), QStringLiteral("rows")},
                      csvPreview);
    table.addDeferred(QStringLiteral("file.list"),
                      {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path"),
                       QStringLiteral("scan")},
                      list);
    table.add(QStringLiteral("file.delete"),
              {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path")}, remove);
    table.addDeferred(QStringLiteral("file.download"),
                      {QStringLiteral("container"), QStringLiteral("scope"), QStringLiteral("path"),
                       QStringLiteral("destination"), QStringLiteral("existing"),
                       QStringLiteral("override_reason")},
                      download);
}

} // namespace Cordon::Api
