// SPDX-License-Identifier: MIT
// Shared set-up for tests that start real sandboxes: a private data directory, the test helpers bound
// read-only at /opt/cordon-tests, and a main() that skips (exit 77) when this host cannot create sandboxes at
// all, unless CORDON_MUST_WORK=1 turns that into a failure (CI sets it).
#pragma once

#include "containers/oneshotrun.h"
#include "sandbox/policy/containerpolicy.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

namespace CordonTest {

constexpr const char *ToolsDir = "/opt/cordon-tests";
// Scripts exit with this when the attack failed the way it must; any other status is a failure of the test.
constexpr int Contained = 42;

inline Cordon::Policy::ContainerPolicy testPolicy()
{
    Cordon::Policy::ContainerPolicy policy;
    policy.memoryLimitBytes = 256LL * 1024 * 1024;
    policy.limits.runTimeoutS = 60;
    policy.mounts.push_back({QCoreApplication::applicationDirPath().toStdString(), ToolsDir, true});
    return policy;
}

inline Cordon::Containers::RunOutcome run(const QStringList &command,
                                          const Cordon::Policy::ContainerPolicy &policy = testPolicy(),
                                          std::optional<QByteArray> stdinData = std::nullopt)
{
    Cordon::Containers::OneShotRequest request;
    request.policy = policy;
    request.command = command;
    request.stdinData = std::move(stdinData);
    return Cordon::Containers::runToCompletion(std::move(request));
}

inline QStringList python(const QString &script)
{
    return {QStringLiteral("python3"), QStringLiteral("-c"), script};
}

inline QStringList sh(const QString &script)
{
    return {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script};
}

inline QStringList probe(const QString &name)
{
    return {QString::fromLatin1(ToolsDir) + QStringLiteral("/cordon-probe"), name};
}

inline QByteArray describe(const Cordon::Containers::RunOutcome &outcome)
{
    return (QStringLiteral("class=%1 exit=%2 signal=%3 message=%4\nstdout=%5\nstderr=%6")
                .arg(Cordon::Containers::errorClassName(outcome.errorClass))
                .arg(outcome.exitCode)
                .arg(outcome.signal)
                .arg(outcome.message, QString::fromUtf8(outcome.stdoutData.left(2000)),
                     QString::fromUtf8(outcome.stderrData.left(2000))))
        .toUtf8();
}

// Runs the test class when a sandbox can be started here; otherwise 77 (skip) or 1 under CORDON_MUST_WORK=1.
template<typename TestClass> int sandboxTestMain(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QTemporaryDir data;
    qputenv("CORDON_DATA_DIR", data.path().toLocal8Bit());
    Cordon::Containers::OneShotRequest probeRequest;
    probeRequest.command = {QStringLiteral("/bin/true")};
    const auto outcome = Cordon::Containers::runToCompletion(std::move(probeRequest));
    if (outcome.errorClass != Cordon::Containers::ErrorClass::Ok) {
        std::fprintf(stderr, "cannot start a sandbox on this host: %s\n", qPrintable(outcome.message));
        return qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1 ? 1 : 77;
    }
    TestClass test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace CordonTest

#define CORDON_SANDBOX_TEST_MAIN(TestClass)                                                                  \
    int main(int argc, char *argv[])                                                                         \
    {                                                                                                        \
        return CordonTest::sandboxTestMain<TestClass>(argc, argv);                                           \
    }
