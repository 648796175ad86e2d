// SPDX-License-Identifier: MIT
// A test certificate authority made by the openssl command at test time: an EC CA valid for two days and a
// server certificate it signed, for the subject alternative names given. Tests trust it explicitly (the
// daemon through --upstream-ca); nothing of it is installed anywhere.
#pragma once

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include <optional>

namespace CordonTest {

struct TestCa
{
    QString caPem;     // the CA's certificate
    QString serverPem; // the server's certificate
    QString serverKey; // the server's key, unencrypted
};

// Empty when there is no openssl command or it failed. altNames: "DNS:localhost,IP:127.0.0.1".
inline std::optional<TestCa> makeTestCa(const QString &directory, const QString &altNames)
{
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (openssl.isEmpty())
        return std::nullopt;
    const auto run = [&](const QStringList &arguments) {
        QProcess process;
        process.setWorkingDirectory(directory);
        process.start(openssl, arguments);
        return process.waitForFinished(30000) && process.exitCode() == 0;
    };
    QFile extensions(directory + QStringLiteral("/server.ext"));
    if (!extensions.open(QIODevice::WriteOnly))
        return std::nullopt;
    extensions.write("subjectAltName=" + altNames.toLatin1() + "\n");
    extensions.close();
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                         QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
    const bool made =
        run(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec +
            QStringList{QStringLiteral("-keyout"), QStringLiteral("ca.key"), QStringLiteral("-out"),
                        QStringLiteral("ca.pem"), QStringLiteral("-days"), QStringLiteral("2"),
                        QStringLiteral("-subj"), QStringLiteral("/CN=Cordon test CA")}) &&
        run(QStringList{QStringLiteral("req")} + ec +
            QStringList{QStringLiteral("-keyout"), QStringLiteral("server.key"), QStringLiteral("-out"),
                        QStringLiteral("server.csr"), QStringLiteral("-subj"),
                        QStringLiteral("/CN=localhost")}) &&
        run({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
             QStringLiteral("server.csr"), QStringLiteral("-CA"), QStringLiteral("ca.pem"),
             QStringLiteral("-CAkey"), QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
             QStringLiteral("-out"), QStringLiteral("server.pem"), QStringLiteral("-days"),
             QStringLiteral("2"), QStringLiteral("-extfile"), QStringLiteral("server.ext")});
    if (!made)
        return std::nullopt;
    return TestCa{directory + QStringLiteral("/ca.pem"), directory + QStringLiteral("/server.pem"),
                  directory + QStringLiteral("/server.key")};
}

} // namespace CordonTest
