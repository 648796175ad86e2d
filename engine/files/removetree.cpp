// SPDX-License-Identifier: MIT
#include "files/removetree.h"

#include "sandbox/files/removetree.h"

#include <QFile>

namespace Cordon::Files {

Result<> removeTree(const QString &path)
{
    const QByteArray bytes = QFile::encodeName(path);
    const auto removed = Core::removeTree(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!removed)
        return Cordon::fail(removed.error());
    return {};
}

} // namespace Cordon::Files
