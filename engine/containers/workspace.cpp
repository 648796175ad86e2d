// SPDX-License-Identifier: MIT
#include "containers/workspace.h"

#include <QFile>

namespace Cordon::Containers {

namespace {

QString fromNative(const std::string &path)
{
    return QFile::decodeName(QByteArray(path.data(), qsizetype(path.size())));
}

std::string toNative(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

} // namespace

QString dataDirectory()
{
    return fromNative(Core::dataDirectory());
}

QString newContainerId()
{
    return QString::fromStdString(Core::newContainerId());
}

Workspace::Workspace(Core::Workspace workspace)
    : m_workspace(std::move(workspace)), m_root(fromNative(m_workspace.root()))
{}

Workspace Workspace::at(const QString &containerId)
{
    return Workspace(Core::Workspace::at(toNative(containerId)));
}

Isolation::WorkspacePaths Workspace::paths(Layout layout) const
{
    const Core::WorkspacePaths paths = m_workspace.paths(layout);
    return {fromNative(paths.work), fromNative(paths.inputs), fromNative(paths.outputs),
            fromNative(paths.code)};
}

Result<> Workspace::remove() const
{
    const auto removed = m_workspace.remove();
    if (!removed)
        return Cordon::fail(removed.error());
    return {};
}

} // namespace Cordon::Containers
