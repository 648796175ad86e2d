// SPDX-License-Identifier: MIT
// A container's files on the host: <data>/containers/<id>/ with work/ (mounted at /mnt/data), inputs/
// (read-only inside) and outputs/ (downloadable artifacts). They live exactly as long as the container. The
// Qt face of containers/core/workspace.h, which holds the code.
#pragma once

#include "core/result.h"
#include "isolation/sandboxspec.h"
#include "sandbox/workspace.h"

#include <QString>

namespace Cordon::Containers {

// $XDG_DATA_HOME/cordon (normally ~/.local/share/cordon); CORDON_DATA_DIR overrides it.
QString dataDirectory();

// A fresh random id: 16 lower-case hex characters, usable as a directory and cgroup name.
QString newContainerId();

class Workspace final
{
public:
    // code/ holds the source files of code runs (mounted read-only at /mnt/code); a container that only runs
    // commands has none.
    using Layout = Core::Workspace::Layout;

    // No directory: root() is empty and remove() does nothing.
    Workspace() = default;

    // The workspace of an existing container, without touching the disk.
    static Workspace at(const QString &containerId);

    const QString &root() const { return m_root; }
    // With Layout::CommandsOnly, `code` is empty.
    Isolation::WorkspacePaths paths(Layout layout = Layout::WithCode) const;

    // Deletes everything below root without following anything the sandbox left (symlinks, odd modes).
    Result<> remove() const;

private:
    explicit Workspace(Core::Workspace workspace);

    Core::Workspace m_workspace;
    QString m_root;
};

} // namespace Cordon::Containers
