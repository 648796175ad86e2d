// SPDX-License-Identifier: MIT
// For the tests that drive the whole window: one connected to the test's own daemon (the fixture runs it, so
// the window must not start one), shown and active; and a daemon request answered before the test goes on.
#pragma once

#include "daemonconnection.h"
#include "mainwindow.h"

#include <QTest>

#include <memory>
#include <optional>

namespace CordonGuiTest {

// nullptr (with a warning) when the window did not become active or did not connect within 10 s.
inline std::unique_ptr<Cordon::Ui::MainWindow> openConnectedWindow()
{
    auto window = std::make_unique<Cordon::Ui::MainWindow>(Cordon::Ui::MainWindow::Options{false});
    window->show();
    if (!QTest::qWaitForWindowActive(window.get())) {
        qWarning("the workbench window did not become active");
        return nullptr;
    }
    window->start();
    if (!QTest::qWaitFor([&] { return window->connection().isConnected(); }, 10000)) {
        qWarning("the workbench window did not connect to the test's daemon");
        return nullptr;
    }
    return window;
}

// Sends `method` through the window's connection and runs the event loop until the answer is there.
inline Cordon::Result<QJsonObject> callAndWait(Cordon::Ui::DaemonConnection &connection,
                                               const QString &method, const QJsonObject &params = {},
                                               int timeoutMs = 60000)
{
    std::optional<Cordon::Result<QJsonObject>> answer;
    QObject context;
    connection.call(method, params, &context,
                    [&](Cordon::Result<QJsonObject> result) { answer = std::move(result); });
    if (!QTest::qWaitFor([&] { return answer.has_value(); }, timeoutMs))
        return tl::unexpected(
            Cordon::makeError(QStringLiteral("test.timeout"), method + QStringLiteral(" was not answered")));
    return *answer;
}

} // namespace CordonGuiTest
