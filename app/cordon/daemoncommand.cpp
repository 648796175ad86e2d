// SPDX-License-Identifier: MIT
// cordon daemon status | start | stop | restart | time-scale N: the per-user daemon itself. Other commands
// start cordond on demand; these look at it, start it with options, stop it, and change its demo clock.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "daemon/daemonpaths.h"
#include "daemon/lite/daemonlog.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QThread>
#include <QTimer>

#include <cerrno>
#include <csignal>

namespace Cordon::Cli {

namespace {

constexpr int StartWaitMs = 10000;
// Stopping stops every container first; a slow one must not make `daemon stop` report failure too early.
constexpr int StopWaitMs = 60000;

const char Usage[] =
    "usage: cordon daemon <status|start|stop|restart|time-scale> [options]\n"
    "\n"
    "cordond holds the containers; every other command starts it when it is not running.\n"
    "\n"
    "  status              is it running: pid, uptime, time scale, containers, cgroups\n"
    "  start [--time-scale N] [-- CORDOND_OPTIONS...]\n"
    "                      start it in the background (a no-op when it runs)\n"
    "  stop                stop it: containers are stopped, files kept, and come back with\n"
    "                      the next daemon\n"
    "  restart [-- CORDOND_OPTIONS...]\n"
    "                      restart it (after an upgrade): containers go on running and the new\n"
    "                      daemon adopts them\n"
    "  time-scale N        the demo clock: idle time of new containers passes N times faster (1..3600)\n"
    "\n"
    "The socket is $XDG_RUNTIME_DIR/cordon/cordond.sock unless CORDON_SOCKET names another;\n"
    "CORDON_DAEMON names the program to start. `cordon daemon <action> --help` for more.\n";

QString logPath()
{
    return toQt(Lite::daemonLogPath(toPlain(Daemon::socketPath())));
}

QString describeCounts(const QJsonObject &counts)
{
    QStringList parts;
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
        parts.append(QStringLiteral("%1 %2").arg(it.value().toInt()).arg(it.key()));
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral(", "));
}

int status(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon daemon status");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Show whether cordond is running, and its pid, uptime, time scale, containers and cgroup backend.\n"
        "Does not start it. Exit status 0 when it runs, 125 when it does not."));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the daemon's result as JSON."));
    parser.addOption(jsonOption);
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));
    DaemonSession session;
    if (auto connected = session.connect(false); !connected)
        return reportError(connected.error());
    auto result = session.call(QStringLiteral("daemon.status"));
    if (!result)
        return reportError(result.error());
    if (parser.isSet(jsonOption)) {
        printJson(*result);
        return 0;
    }
    const double scale = result->value(QStringLiteral("time_scale")).toDouble(1);
    printOut(QStringLiteral("cordond %1 running, pid %2, up %3\n")
                 .arg(result->value(QStringLiteral("version")).toString())
                 .arg(result->value(QStringLiteral("pid")).toInteger())
                 .arg(formatSpan(result->value(QStringLiteral("uptime_s")).toInteger() * 1000)) +
             QStringLiteral("socket:      %1\n").arg(Daemon::socketPath()) +
             QStringLiteral("time scale:  %1%2\n")
                 .arg(scale)
                 .arg(scale == 1 ? QString() : QStringLiteral(" (idle time passes %1x faster)").arg(scale)) +
             QStringLiteral("containers:  %1\n")
                 .arg(describeCounts(result->value(QStringLiteral("containers")).toObject())) +
             QStringLiteral("cgroups:     %1\n").arg(result->value(QStringLiteral("cgroup")).toString()));
    return 0;
}

// One line a container: what the daemon's stop did with its files, and until when they are kept. 1 when
// some could not be saved.
int describeKeptFiles(const QJsonArray &containers)
{
    int status = 0;
    bool anyKept = false;
    for (const QJsonValue &value : containers) {
        const QJsonObject container = value.toObject();
        const QJsonObject save = container.value(QStringLiteral("save")).toObject();
        const QString who =
            QStringLiteral("%1 (%2)").arg(container.value(QStringLiteral("id")).toString(),
                                          escapeName(container.value(QStringLiteral("name")).toString()));
        if (save.value(QStringLiteral("state")).toString() == QLatin1String("failed")) {
            printOut(
                QStringLiteral(
                    "  %1: its files could NOT be saved (%2); what changed since its last save is lost\n")
                    .arg(who, save.value(QStringLiteral("error")).toString()));
            status = 1;
            continue;
        }
        anyKept = true;
        printOut(QStringLiteral("  %1: files kept until %2\n")
                     .arg(who, formatTime(container.value(QStringLiteral("expires_at")).toInteger())));
    }
    if (anyKept)
        printOut(QStringLiteral(
            "(each container's idle deadline; one that passes while no daemon runs gets a grace "
            "period, 10 minutes by default, at the next daemon's start)\n"));
    return status;
}

// Asks the connected daemon to shut down and waits until it has closed our connection: the answer (what
// became of each container), or `daemon.disconnected` when it went before answering.
Result<QJsonObject> shutDown(DaemonSession &session, const QJsonObject &params)
{
    const qint64 pid = session.client().helloResult().value(QStringLiteral("pid")).toInteger();
    // The daemon closes every connection as it exits: our own closing is the sign that it is gone.
    QEventLoop loop;
    bool gone = false;
    QObject::connect(&session.client(), &Daemon::DaemonClient::disconnected, &loop, [&] {
        gone = true;
        loop.quit();
    });
    // Containers are stopped and saved (or checkpointed) before the answer: a large workspace takes seconds.
    auto result = session.call(QStringLiteral("daemon.shutdown"), params, StopWaitMs);
    if (!result && result.error().code() != "daemon.disconnected")
        return result;
    if (!gone && session.client().isConnected()) {
        QTimer::singleShot(StopWaitMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (session.client().isConnected())
        return fail(makeError(QStringLiteral("daemon.timeout"),
                              QStringLiteral("cordond (pid %1) accepted the shutdown but is still running "
                                             "after %2 s")
                                  .arg(pid)
                                  .arg(StopWaitMs / 1000)));
    return result;
}

int stop(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon daemon stop");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Stop cordond. Its containers are stopped (processes end, files are saved) and the next daemon\n"
        "brings back the ones that were running. Says until when each container's files are kept, and\n"
        "returns once the daemon is gone; 0 also when none was running, 1 when a container's files could\n"
        "not be saved. `cordon daemon restart` keeps them running instead."));
    parser.addHelpOption();
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));
    DaemonSession session;
    if (auto connected = session.connect(false); !connected) {
        if (connected.error().code() != "daemon.unreachable")
            return reportError(connected.error());
        printOut(QStringLiteral("cordond is not running\n"));
        return 0;
    }
    const qint64 pid = session.client().helloResult().value(QStringLiteral("pid")).toInteger();
    auto result = shutDown(session, {});
    if (!result && result.error().code() != "daemon.disconnected")
        return reportError(result.error());
    printOut(QStringLiteral("cordond (pid %1) stopped\n").arg(pid));
    return result ? describeKeptFiles(result->value(QStringLiteral("containers")).toArray()) : 0;
}

// Splits `[-- CORDOND_OPTIONS...]` off a command line whose parser takes them as positional arguments.
Result<QStringList> daemonOptions(const QCommandLineParser &parser, const QStringList &arguments)
{
    QStringList options = parser.positionalArguments();
    if (!options.isEmpty() && options.first() == QLatin1String("--"))
        options.removeFirst();
    if (!options.isEmpty() && !arguments.contains(QStringLiteral("--")))
        return fail(makeError(QStringLiteral("cli.usage"),
                              QStringLiteral("unexpected argument `%1` (cordond's own options go after `--`)")
                                  .arg(options.first())));
    return options;
}

int start(const QStringList &arguments);

int restart(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon daemon restart");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Restart cordond, for example after an upgrade of the package, without stopping its containers:\n"
        "their processes, files and runs under way go on, and the new daemon adopts them (a run that ends\n"
        "meanwhile keeps its outcome and output). Each running container is checkpointed first. Starts\n"
        "cordond when none runs. Options after `--` go to the new cordond."));
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("options"), QStringLiteral("Options for cordond."),
                                 QStringLiteral("[-- CORDOND_OPTIONS...]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const Result<QStringList> options = daemonOptions(parser, arguments);
    if (!options)
        return usageError(command, toQt(options.error().message()));
    DaemonSession session;
    if (auto connected = session.connect(false); connected) {
        const qint64 pid = session.client().helloResult().value(QStringLiteral("pid")).toInteger();
        auto result = shutDown(session, {{QStringLiteral("leave_running"), true}});
        if (!result)
            return reportError(result.error());
        // Its lock and socket go with the process: the next daemon starts only once it is gone.
        QElapsedTimer clock;
        clock.start();
        while (!Lite::processHasExited(static_cast<pid_t>(pid)) && clock.elapsed() < StopWaitMs)
            QThread::msleep(20);
        const QJsonArray containers = result->value(QStringLiteral("containers")).toArray();
        printOut(QStringLiteral("cordond (pid %1) stopped; its %2 container(s) go on running\n")
                     .arg(pid)
                     .arg(containers.size()));
        for (const QJsonValue &value : containers) {
            const QJsonObject container = value.toObject();
            const QJsonObject save = container.value(QStringLiteral("save")).toObject();
            if (save.value(QStringLiteral("state")).toString() == QLatin1String("failed"))
                printOut(
                    QStringLiteral("  %1 (%2): its checkpoint failed (%3); it goes on running, its files "
                                   "in memory\n")
                        .arg(container.value(QStringLiteral("id")).toString(),
                             escapeName(container.value(QStringLiteral("name")).toString()),
                             save.value(QStringLiteral("error")).toString()));
        }
    } else if (connected.error().code() != "daemon.unreachable") {
        return reportError(connected.error());
    }
    QStringList startArguments{QStringLiteral("cordon daemon start")};
    if (!options->isEmpty())
        startArguments << QStringLiteral("--") << *options;
    return start(startArguments);
}

int start(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon daemon start");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Start cordond in the background, its log beside the socket (cordond.sock.log). Does nothing when "
        "it\n"
        "is already running, except apply --time-scale. Options after `--` go to cordond as they are\n"
        "(`cordond --help` lists them)."));
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    parser.addHelpOption();
    const QCommandLineOption scaleOption(
        QStringLiteral("time-scale"),
        QStringLiteral("Idle time passes N times faster, 1..3600 (60 turns minutes into seconds)."),
        QStringLiteral("N"));
    parser.addOption(scaleOption);
    parser.addPositionalArgument(QStringLiteral("options"), QStringLiteral("Options for cordond."),
                                 QStringLiteral("[-- CORDOND_OPTIONS...]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const Result<QStringList> options = daemonOptions(parser, arguments);
    if (!options)
        return usageError(command, toQt(options.error().message()));
    QStringList daemonArguments = *options;
    double scale = 0;
    if (parser.isSet(scaleOption)) {
        bool ok = false;
        scale = parser.value(scaleOption).toDouble(&ok);
        if (!ok || scale < 1 || scale > 3600)
            return usageError(command, QStringLiteral("--time-scale must be a number from 1 to 3600"));
    }

    DaemonSession session;
    if (session.connect(false)) {
        const QJsonObject hello = session.client().helloResult();
        printOut(QStringLiteral("cordond is already running (pid %1)\n")
                     .arg(hello.value(QStringLiteral("pid")).toInteger()));
        if (scale > 0 && hello.value(QStringLiteral("time_scale")).toDouble(1) != scale) {
            // A running daemon's containers keep the clock they have: this is no way to change it.
            auto status = session.call(QStringLiteral("daemon.status"));
            qint64 live = 0;
            if (status) {
                const QJsonObject counts = status->value(QStringLiteral("containers")).toObject();
                live = counts.value(QStringLiteral("running")).toInteger() +
                       counts.value(QStringLiteral("stopped")).toInteger();
            }
            if (live > 0)
                return reportError(makeError(
                    QStringLiteral("daemon.time_scale_refused"),
                    QStringLiteral(
                        "cordond is running with %1 container(s) on its clock; --time-scale applies to "
                        "a daemon it starts. `cordon daemon time-scale %2` sets the demo clock for "
                        "containers made from now on (the others keep theirs)")
                        .arg(live)
                        .arg(scale)));
            auto set =
                session.call(QStringLiteral("daemon.set_time_scale"), {{QStringLiteral("scale"), scale}});
            if (!set)
                return reportError(set.error());
            printOut(
                QStringLiteral("time scale: %1\n").arg(set->value(QStringLiteral("time_scale")).toDouble()));
        }
        return 0;
    }

    const QString program = Daemon::DaemonClient::daemonProgram();
    if (program.isEmpty())
        return reportError(makeError(QStringLiteral("daemon.start_failed"),
                                     QStringLiteral("cordond was not found beside this program or on PATH")));
    if (auto directory = Daemon::ensureSocketDirectory(); !directory)
        return reportError(directory.error());
    if (scale > 0)
        daemonArguments =
            QStringList{QStringLiteral("--time-scale"), QString::number(scale)} + daemonArguments;
    // Where this daemon's output will begin in its log, so that a failed start quotes only what it said.
    const qint64 logOffset = QFileInfo(logPath()).size();
    QProcess process;
    process.setProgram(program);
    process.setArguments(daemonArguments);
    // Detached, with its stdio away from this terminal (a pipe reader would otherwise wait for the daemon to
    // exit) and its working directory at / (so it pins no directory the user may want to unmount).
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(logPath(), QIODevice::Append);
    process.setStandardErrorFile(logPath(), QIODevice::Append);
    process.setWorkingDirectory(QDir::rootPath());
    qint64 pid = 0;
    if (!process.startDetached(&pid))
        return reportError(makeError(QStringLiteral("daemon.start_failed"),
                                     QStringLiteral("start `%1`: %2").arg(program, process.errorString())));
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < StartWaitMs) {
        DaemonSession probe;
        if (probe.connect(false)) {
            printOut(QStringLiteral("cordond started (pid %1), log %2\n")
                         .arg(probe.client().helloResult().value(QStringLiteral("pid")).toInteger())
                         .arg(logPath()));
            return 0;
        }
        // Gone already (a bad option, no cgroups, another daemon won the lock): its log says why.
        if (Lite::processHasExited(static_cast<pid_t>(pid)))
            break;
        QThread::msleep(50);
    }
    const QString log =
        toQt(Lite::daemonLogTail(toPlain(Daemon::socketPath()), static_cast<off_t>(logOffset)));
    return reportError(
        makeError(QStringLiteral("daemon.start_failed"),
                  QStringLiteral("started `%1`, but it is not answering on `%2`%3")
                      .arg(program, Daemon::socketPath(),
                           log.isEmpty() ? QString() : QStringLiteral("; its log ends with:\n") + log)));
}

int timeScale(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon daemon time-scale");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Make idle time pass N times faster (1 is real time) for demo containers: those made with\n"
        "`cordon create --demo` or by the workbench's Demo menu, or marked there. Every other\n"
        "container keeps real time. At 60, a demo that expires after 20 idle minutes expires after\n"
        "20 seconds."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("scale"), QStringLiteral("1..3600."), QStringLiteral("N"));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the daemon's result as JSON."));
    parser.addOption(jsonOption);
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (parser.positionalArguments().size() != 1)
        return usageError(command, QStringLiteral("give the scale, a number from 1 to 3600"));
    bool ok = false;
    const double scale = parser.positionalArguments().first().toDouble(&ok);
    if (!ok || scale < 1 || scale > 3600)
        return usageError(command, QStringLiteral("the scale must be a number from 1 to 3600"));
    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto result = session.call(QStringLiteral("daemon.set_time_scale"), {{QStringLiteral("scale"), scale}});
    if (!result)
        return reportError(result.error());
    if (parser.isSet(jsonOption))
        printJson(*result);
    else
        printOut(
            QStringLiteral("time scale: %1\n").arg(result->value(QStringLiteral("time_scale")).toDouble()));
    return 0;
}

} // namespace

int daemonCommand(const QStringList &arguments)
{
    if (arguments.size() < 2 || arguments[1] == QLatin1String("--help") ||
        arguments[1] == QLatin1String("-h")) {
        if (arguments.size() < 2) {
            printErr(QString::fromLatin1(Usage));
            return UsageError;
        }
        printOut(QString::fromLatin1(Usage));
        return 0;
    }
    const QString action = arguments[1];
    QStringList rest = arguments.mid(1);
    rest[0] = QStringLiteral("cordon daemon ") + action;
    if (action == QLatin1String("status"))
        return status(rest);
    if (action == QLatin1String("start"))
        return start(rest);
    if (action == QLatin1String("stop"))
        return stop(rest);
    if (action == QLatin1String("restart"))
        return restart(rest);
    if (action == QLatin1String("time-scale"))
        return timeScale(rest);
    printErr(QStringLiteral("cordon daemon: unknown action `%1`\n\n").arg(action) +
             QString::fromLatin1(Usage));
    return UsageError;
}

} // namespace Cordon::Cli
