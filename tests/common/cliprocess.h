// SPDX-License-Identifier: MIT
// Running Cordon's programs as a user does, from tests: a real process, its status, stdout and stderr.
#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

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

} // namespace CordonTest
