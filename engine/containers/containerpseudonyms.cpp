// SPDX-License-Identifier: MIT
// ContainerManager: pseudonym keys and CSV previews (docs/pseudonymize.md). The key comes from the secret
// store on the manager's thread, like secrets; only the file work runs on the file pool.
#include "containers/containermanager.h"
#include "containers/csvupload.h"

#include "core/plainbridge.h"

#include <QDateTime>
#include <QFile>

namespace Cordon::Containers {

Result<Secrets::PseudonymKey> ContainerManager::pseudonymKey(const QString &name) const
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    auto key = (*store)->pseudonymKey(
        toPlain(name.isEmpty() ? QString::fromLatin1(Secrets::DefaultPseudonymKey) : name),
        QDateTime::currentMSecsSinceEpoch());
    if (!key)
        return fail(key.error());
    return std::move(*key);
}

Result<std::vector<Secrets::StoredPseudonymKey>> ContainerManager::pseudonymKeys() const
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    return (*store)->pseudonymKeys();
}

Result<> ContainerManager::removePseudonymKey(const QString &name)
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    CORDON_TRY((*store)->removePseudonymKey(toPlain(name)));
    recordEvent({}, {}, QStringLiteral("secret.removed"),
                {{QStringLiteral("name"), name}, {QStringLiteral("pseudonym_key"), true}});
    return {};
}

void ContainerManager::previewCsv(const QString &hostPath, const std::optional<QByteArray> &content,
                                  std::optional<bool> header, const QString &key, int maxRows,
                                  Done<CsvPreviewReport> done)
{
    auto keyed = pseudonymKey(key);
    if (!keyed)
        return done(fail(keyed.error()));
    std::optional<std::string> bytes;
    if (content)
        bytes = content->toStdString();
    offload<CsvPreviewReport>(
        [source = QFile::encodeName(hostPath).toStdString(), bytes = std::move(bytes), header, maxRows,
         name = toQt(keyed->name), id = toQt(keyed->id),
         pseudonyms = Secrets::Pseudonymizer(keyed->bytes)]() -> Result<CsvPreviewReport> {
            auto fd = openCsvSource(source, bytes);
            if (!fd)
                return fail(fd.error());
            auto preview = Csv::previewCsv(fd->get(), pseudonyms, header, static_cast<std::size_t>(maxRows));
            if (!preview)
                return fail(preview.error());
            return CsvPreviewReport{std::move(*preview), name, id};
        },
        std::move(done));
}

} // namespace Cordon::Containers
