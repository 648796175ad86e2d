// SPDX-License-Identifier: MIT
#include "files/filenames.h"

namespace Cordon::Files {

Result<> validateName(QByteArrayView name)
{
    const auto valid = Core::validateName(std::string_view(name.data(), std::size_t(name.size())));
    if (!valid)
        return Cordon::fail(valid.error());
    return {};
}

QString escapeForDisplay(QByteArrayView name)
{
    const std::string shown = Core::escapeForDisplay(std::string_view(name.data(), std::size_t(name.size())));
    return QString::fromUtf8(shown.data(), qsizetype(shown.size()));
}

} // namespace Cordon::Files
