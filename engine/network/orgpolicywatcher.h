// SPDX-License-Identifier: MIT
// Tells the daemon when the organisation allowlist's content changed, and only then. It watches the two
// files (the administrator's and the user's) and the folders that hold them, or the nearest folder that
// exists when one is still missing, so that a file created later is picked up at once. Folder events are many
// and mostly about other files (the workbench keeps its settings beside the user's allowlist), so each event
// is checked against a fingerprint of the two files' content: changed() is emitted only when that differs. A
// burst of events (an editor truncating the file and writing it again) is read once it has been quiet for a
// moment, so a half-written file is not reported as a broken one.
#pragma once

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QObject>
#include <QStringList>
#include <QTimer>

namespace Cordon::Network {

class OrgPolicyWatcher : public QObject
{
    Q_OBJECT

public:
    // files: the paths load() reads, in its order (OrgPolicy::systemPath(), OrgPolicy::userPath()).
    explicit OrgPolicyWatcher(QStringList files, QObject *parent = nullptr);

    // Call after the caller wrote or created a file itself: watches what now exists and takes the present
    // content as seen, so the caller's own write does not come back as a change.
    void resync();

Q_SIGNALS:
    void changed();

private:
    void eventSeen();
    void check();
    void watchWhatExists();
    QByteArray fingerprint() const;

    QStringList m_files;
    QFileSystemWatcher m_watcher;
    QTimer m_quiet; // restarted by every event; the files are read when it fires
    QByteArray m_seen;
};

} // namespace Cordon::Network
