// SPDX-License-Identifier: MIT
// Running Cordon's programs as a user does, from tests: a real process, its status, stdout and stderr.
#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

namespace CordonTest {

struct CliResult
{
    int status = -1; // -1: it crashed or did not finish
    QByteArray out;
    QByteArray err;

    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    // For QVERIFY2: everything the command said.
    QByteArray describe() const
    {
        return "status " + QByteArray::number(status) + "\nstdout: " + out + "\nstderr: " + err;
    }
};

// A program built beside the test (cordon, cordon-cli, cordon-init, ...).
inline QString builtProgram(const QString &name)
{
    return QCoreApplication::applicationDirPath() + QLatin1Char('/') + name;
}

inline CliResult runProgram(const QString &program, const QStringList &arguments,
                            const QByteArray &input = {},
                            const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProgram(program);
    process.setArguments(arguments);
    process.setProcessEnvironment(environment);
    process.start();
    if (!process.waitForStarted(10000))
        return {};
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished(5000);
        return {-1, process.readAllStandardOutput(), process.readAllStandardError() + "\n(timed out)"};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

// `cordon ARGUMENTS` as a user types it (the launcher, which hands most commands to cordon-cli), with `input`
// on its standard input.
inline CliResult cordon(const QStringList &arguments, const QByteArray &input = {},
                        const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    return runProgram(builtProgram(QStringLiteral("cordon")), arguments, input, environment);
}

// Writes `json` to NAME.json in `folder`; its path, or empty when it could not be written.
inline QString writePolicyFile(const QString &folder, const QString &name, const QByteArray &json)
{
    const QString path = folder + QLatin1Char('/') + name + QStringLiteral(".json");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size())
        return {};
    return path;
}

// args({"secret", "ls"}): a command line from literals.
inline QStringList args(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *arg : list)
        result.append(QString::fromUtf8(arg));
    return result;
}

// Starts `daemon` (cordond with its arguments, and its environment when set) and waits until `cordon daemon
// status` answers through the socket in `environment`; the last status is returned (status 0 once it
// answers).
inline CliResult
startDaemonAndWait(QProcess &daemon, int timeoutMs = 15000,
                   const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    daemon.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    daemon.start();
    if (!daemon.waitForStarted(5000))
        return {-1, {}, daemon.errorString().toUtf8()};
    QElapsedTimer clock;
    clock.start();
    CliResult status;
    while (clock.elapsed() < timeoutMs) {
        status = runProgram(builtProgram(QStringLiteral("cordon")),
                            {QStringLiteral("daemon"), QStringLiteral("status")}, {}, environment);
        if (status.status == 0 || daemon.state() == QProcess::NotRunning)
            break;
        QThread::msleep(50);
    }
    return status;
}

// A cordond of the test's own, on a socket in `dir`: `cordon` never starts another. Status 0 once it answers.
inline CliResult startPrivateDaemon(QProcess &daemon, const QString &dir)
{
    qputenv("CORDON_SOCKET", QFile::encodeName(dir + QStringLiteral("/d.sock")));
    qputenv("CORDON_DAEMON", "/nonexistent/cordond");
    daemon.setProgram(builtProgram(QStringLiteral("cordond")));
    return startDaemonAndWait(daemon);
}

// `cordon daemon stop` (through the socket in `environment`), then a kill if it does not end.
inline void
stopPrivateDaemon(QProcess &daemon,
                  const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    runProgram(builtProgram(QStringLiteral("cordon")), {QStringLiteral("daemon"), QStringLiteral("stop")}, {},
               environment);
    if (!daemon.waitForFinished(30000)) {
        daemon.kill();
        daemon.waitForFinished(5000);
    }
}

// The recorded events of `container` whose kind starts with `kindPrefix` (`cordon events --json`).
inline QJsonArray eventsOfKind(const QString &container, const QString &kindPrefix)
{
    const CliResult events = runProgram(
        builtProgram(QStringLiteral("cordon")),
        {QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"), container});
    QJsonArray out;
    for (const QJsonValue &value :
         QJsonDocument::fromJson(events.out).object().value(QStringLiteral("events")).toArray()) {
        if (value.toObject().value(QStringLiteral("kind")).toString().startsWith(kindPrefix))
            out.append(value);
    }
    return out;
}

// The bytes of the history a daemon with this data folder keeps: history.db, its WAL and journal, as one
// haystack for tests that prove a value is not in it.
inline QByteArray historyFileBytes(const QString &dataDir)
{
    QByteArray bytes;
    for (const char *name : {"history.db", "history.db-wal", "history.db-journal"}) {
        QFile file(dataDir + QLatin1Char('/') + QString::fromUtf8(name));
        if (file.open(QIODevice::ReadOnly))
            bytes += file.readAll();
    }
    return bytes;
}

} // namespace CordonTest
