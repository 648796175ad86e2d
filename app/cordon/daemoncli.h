// SPDX-License-Identifier: MIT
// What every daemon-backed subcommand shares: parsing with a correct usage line, the connection to cordond,
// error reporting with the exit statuses of docs/cli.md, and naming containers by id, prefix or name.
#pragma once

#include "cliparse.h"
#include "core/result.h"
#include "daemon/daemonclient.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>

#include <functional>
#include <optional>

namespace Cordon::Cli {

// Prints the error (and a hint: the engine's table first, then advice about the CLI and the daemon) and
// returns the exit status for it: SetupFailure when there is no daemon to talk to, 1 otherwise.
int reportError(const Error &error);
// True for the errors that mean "no daemon answered" rather than "the daemon said no".
bool isUnreachable(const Error &error);

// The result object as indented JSON on stdout, and nothing else.
void printJson(const QJsonObject &object);
void printJson(const QJsonArray &array);

// A path inside a container, as file.* methods take it: a scope (inputs, outputs, workspace) and a path
// relative to it, empty for all of it.
struct ContainerPath
{
    QString scope;
    QString path;
};
// The container's own paths (/mnt/data/outputs/x; /mnt/data/x is the workspace), scope-relative ones
// (outputs/x, inputs/x, workspace/x) and bare ones (x, meaning outputs/x) all name the same files.
ContainerPath parseContainerPath(const QString &text);
// Without leading and trailing slashes.
QString stripSlashes(QString path);

class DaemonSession final
{
    Q_DISABLE_COPY_MOVE(DaemonSession)

public:
    // A daemon that is busy (a large download, many containers stopping) is still answering; a CLI that gave
    // up on it would leave the user guessing whether the operation happened.
    static constexpr int CallTimeoutMs = 300000;

    DaemonSession() = default;

    // Connects, starting cordond beside this program when nothing listens and autoStart is true.
    Result<> connect(bool autoStart = true);
    Result<QJsonObject> call(const QString &method, const QJsonObject &params = {},
                             int timeoutMs = CallTimeoutMs);
    Daemon::DaemonClient &client() { return m_client; }

    // The container `reference` names: an exact id, else the name of a running or stopped container, else a
    // unique id prefix (containers that still exist win over expired and deleted ones, so a short prefix
    // means the live one). Several matches are `cli.ambiguous`; none is the daemon's own
    // `container.not_found`.
    Result<QJsonObject> resolveContainer(const QString &reference);
    // Just the id of resolveContainer().
    Result<QString> resolveContainerId(const QString &reference);

private:
    Daemon::DaemonClient m_client;
};

// The loop of the commands that act on several containers (stop, start, keepalive, rm): connects, resolves
// each reference and hands the container to `act`. A failure is reported and the next reference tried, unless
// the daemon is gone. With `json` the results are printed as one object (one reference) or an array;
// otherwise `describe` gives the line printed for each. Returns the exit status of the last failure, or 0.
using ContainerAction =
    std::function<Result<QJsonObject>(DaemonSession &session, const QJsonObject &container)>;
int actOnContainers(const QStringList &references, bool json, const ContainerAction &act,
                    const std::function<QString(const QJsonObject &result)> &describe);

} // namespace Cordon::Cli
