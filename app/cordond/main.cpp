// SPDX-License-Identifier: MIT
// cordond: the per-user daemon. Holds the containers, their cgroups, idle timers and memory sampling, and the
// SQLite history; the CLI, the workbench and scripts are its clients (docs/protocol.md).
#include "containers/containermanager.h"
#include "core/plainbridge.h"
#include "daemon/api/daemonapi.h"
#include "daemon/controlserver.h"
#include "daemon/daemonpaths.h"
#include "daemon/logrotation.h"
#include "daemon/socketactivation.h"
#include "sandbox/workspace.h"
#include "store/historystore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/signalfd.h>
#include <unistd.h>

namespace {

int failWith(const Cordon::Error &error)
{
    std::fprintf(stderr, "cordond: %s\n", error.describe().c_str());
    return 1;
}

} // namespace

int main(int argc, char *argv[])
{
    // A run that closes its stdin must not kill the daemon with SIGPIPE when we write to it.
    ::signal(SIGPIPE, SIG_IGN);
    // First, so that the LISTEN_* variables are gone before anything could start a process.
    auto activation = Cordon::Daemon::takeActivation();
    // Qt's own poll() loop rather than GLib's: the daemon serves no GLib source (libsecret's synchronous
    // calls run a context of their own), and GLib's loop kept 0.3 MiB more of a fresh daemon resident
    // (docs/benchmarks.md). For the whole process, since each QThread chooses its loop by the same variable.
    ::setenv("QT_NO_GLIB", "1", 1);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("cordond"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CORDON_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Cordon's per-user daemon. Clients start it when needed."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption timeScale(
        QStringLiteral("time-scale"),
        QStringLiteral("Idle minutes pass N times faster (demos: 60 turns minutes into seconds)."),
        QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption maxContainers(QStringLiteral("max-containers"),
                                           QStringLiteral("Running containers at most (default 16)."),
                                           QStringLiteral("N"), QStringLiteral("16"));
    const QCommandLineOption maxRuns(QStringLiteral("max-runs"),
                                     QStringLiteral("Active runs per container at most (default 8)."),
                                     QStringLiteral("N"), QStringLiteral("8"));
    const QCommandLineOption sampleHz(QStringLiteral("sample-hz"),
                                      QStringLiteral("Memory samples per second (default 2)."),
                                      QStringLiteral("N"), QStringLiteral("2"));
    const QCommandLineOption expiringLead(
        QStringLiteral("expiring-soon"),
        QStringLiteral("Warn this many (scaled) seconds before expiry (default 120)."),
        QStringLiteral("seconds"), QStringLiteral("120"));
    const QCommandLineOption degraded(
        QStringLiteral("allow-degraded"),
        QStringLiteral("Run containers without memory and pids limits when the host has no cgroups."));
    const QCommandLineOption networkRows(
        QStringLiteral("network-rows-per-run"),
        QStringLiteral("Network decisions itemised in the history per run (five times as many per container "
                       "for connections of no run); the rest are counted (default 1000)."),
        QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption upstreamCa(
        QStringLiteral("upstream-ca"),
        QStringLiteral(
            "Also trust the CAs in this PEM file for upstreams of domain secrets (the proxy checks "
            "them against the host's trust store otherwise); may be given more than once."),
        QStringLiteral("file"));
    const QCommandLineOption checkpointInterval(
        QStringLiteral("checkpoint-interval"),
        QStringLiteral(
            "Checkpoint a running container's files to disk this often after activity, so that a "
            "power loss loses at most that much of its work; 0 turns checkpoints off (default 60)."),
        QStringLiteral("seconds"), QStringLiteral("60"));
    const QCommandLineOption expiryGrace(
        QStringLiteral("expiry-grace"),
        QStringLiteral("A container whose idle deadline passed while no daemon ran lives this many more "
                       "seconds, on its own clock, announced (default 600)."),
        QStringLiteral("seconds"), QStringLiteral("600"));
    const QCommandLineOption logMax(
        QStringLiteral("log-max-mb"),
        QStringLiteral("When standard error is a file (the log `cordon` starts it with), keep it under this "
                       "many MiB: past it, it becomes <log>.1 and a new file begins (default 8; 0: never)."),
        QStringLiteral("MiB"), QStringLiteral("8"));
    parser.addOptions({timeScale, maxContainers, maxRuns, sampleHz, expiringLead, degraded, networkRows,
                       upstreamCa, checkpointInterval, expiryGrace, logMax});
    parser.process(app);

    Cordon::Containers::ManagerSettings settings;
    bool ok = true, allOk = true;
    settings.timeScale = parser.value(timeScale).toDouble(&ok);
    allOk &= ok && settings.timeScale >= 1 && settings.timeScale <= 3600;
    settings.maxContainers = parser.value(maxContainers).toInt(&ok);
    allOk &= ok && settings.maxContainers >= 1 && settings.maxContainers <= 1024;
    settings.maxRunsPerContainer = parser.value(maxRuns).toInt(&ok);
    allOk &= ok && settings.maxRunsPerContainer >= 1 && settings.maxRunsPerContainer <= 64;
    const double hz = parser.value(sampleHz).toDouble(&ok);
    allOk &= ok && hz >= 0.1 && hz <= 20;
    settings.sampleIntervalMs = static_cast<int>(1000 / (hz > 0 ? hz : 1));
    settings.expiringSoonLeadSeconds = parser.value(expiringLead).toInt(&ok);
    allOk &= ok && settings.expiringSoonLeadSeconds >= 0;
    settings.allowDegraded = parser.isSet(degraded);
    settings.upstreamCaFiles = parser.values(upstreamCa);
    settings.networkRowsPerRun = parser.value(networkRows).toInt(&ok);
    allOk &= ok && settings.networkRowsPerRun >= 10 && settings.networkRowsPerRun <= 1000000;
    const int checkpointSeconds = parser.value(checkpointInterval).toInt(&ok);
    allOk &= ok && checkpointSeconds >= 0 && checkpointSeconds <= 86400;
    settings.checkpointIntervalMs = checkpointSeconds * 1000;
    settings.expiryGraceSeconds = parser.value(expiryGrace).toInt(&ok);
    allOk &= ok && settings.expiryGraceSeconds >= 0 && settings.expiryGraceSeconds <= 86400;
    const int logMaxMb = parser.value(logMax).toInt(&ok);
    allOk &= ok && logMaxMb >= 0 && logMaxMb <= 65536;
    if (!allOk) {
        std::fprintf(stderr,
                     "cordond: invalid option value (time scale 1..3600, max containers 1..1024, max runs "
                     "1..64, sample rate 0.1..20 Hz, network rows per run 10..1000000, checkpoint interval "
                     "and expiry grace 0..86400 s, log 0..65536 MiB)\n");
        return 2;
    }

    if (!activation)
        return failWith(activation.error());
    // Checked every ten seconds: what a client can make the daemon write between two checks is small.
    Cordon::Daemon::LogRotation logRotation(qint64(logMaxMb) * 1024 * 1024, 10000);
    if (!activation->ignored.isEmpty())
        std::fprintf(stderr, "cordond: %s\n", qPrintable(activation->ignored));
    const bool activated = activation->fd >= 0;

    if (auto dir = Cordon::Daemon::ensureSocketDirectory(); !dir)
        return failWith(dir.error());
    auto lock = Cordon::Daemon::InstanceLock::acquire();
    if (!lock)
        return failWith(lock.error());
    auto store = Cordon::Store::HistoryStore::open(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                                   QStringLiteral("/history.db"));
    if (!store)
        return failWith(store.error());

    Cordon::Containers::ContainerManager manager(**store, settings);
    if (auto initialized = manager.initialize(); !initialized)
        return failWith(initialized.error());
    Cordon::Daemon::ControlServer server;
    Cordon::Api::DaemonApi api(manager, **store, server);
    server.setHandler(&api);
    // Socket-activated, the service manager holds the socket file and queues clients on it while the
    // containers are recovered above; otherwise the daemon binds it only now, when it can answer.
    if (auto listening = activated ? server.adopt(activation->fd, Cordon::Daemon::socketPath())
                                   : server.listen(Cordon::Daemon::socketPath());
        !listening)
        return failWith(listening.error());

    // SIGTERM and SIGINT arrive through a signalfd on the event loop: containers are stopped cleanly.
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    ::sigprocmask(SIG_BLOCK, &mask, nullptr);
    const int signalFd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    QSocketNotifier signalNotifier(signalFd, QSocketNotifier::Read);
    auto quit = [&] {
        manager.shutdown();
        server.close();
        QCoreApplication::quit();
    };
    QObject::connect(&signalNotifier, &QSocketNotifier::activated, &app, quit);
    QObject::connect(&api, &Cordon::Api::DaemonApi::shutdownRequested, &app, [&](bool leaveRunning) {
        if (!leaveRunning)
            return quit();
        // The containers stay with their cordon-inits: the daemon goes the way a crashed one does (no
        // destructor may stop them), which is the path the crash test proves loses nothing. What a crash
        // would not do was done before the answer: a checkpoint of each and the history flushed.
        server.close();
        std::fflush(nullptr);
        std::_Exit(0);
    });

    std::fprintf(stderr, "cordond: %s %s (time scale %g, cgroups: %s)\n",
                 activated ? "serving, socket-activated, on" : "listening on",
                 qPrintable(Cordon::Daemon::socketPath()), settings.timeScale,
                 qPrintable(manager.cgroupDescription()));
    return QCoreApplication::exec();
}
