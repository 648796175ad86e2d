// SPDX-License-Identifier: MIT
// What a list says a run ran (engine/core/runsummary.h): the first line of its code that says what it does,
// on literal programs, and the run object's fallbacks.
#include "core/runsummary.h"

#include <QJsonArray>
#include <QObject>
#include <QTest>

using namespace Cordon;

class TestRunSummary final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void firstMeaningfulLine_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("line");
        QTest::newRow("a statement") << QStringLiteral("print('hello')\n")
                                     << QStringLiteral("print('hello')");
        QTest::newRow("imports passed over")
            << QStringLiteral("import sys\nfrom os import path\n\nsys.exit(3)\n")
            << QStringLiteral("sys.exit(3)");
        QTest::newRow("a comment says what it is for")
            << QStringLiteral("# Demo: a memory bomb.\n# Holds 64 MiB more.\nimport time\n")
            << QStringLiteral("Demo: a memory bomb.");
        QTest::newRow("shebang and coding line")
            << QStringLiteral("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n  x = 1  \n")
            << QStringLiteral("x = 1");
        QTest::newRow("docstring") << QStringLiteral("\"\"\"Fetch the index.\"\"\"\n")
                                   << QStringLiteral("Fetch the index.");
        QTest::newRow("docstring opening alone")
            << QStringLiteral("\"\"\"\nCount the rows.\n\"\"\"\n") << QStringLiteral("Count the rows.");
        QTest::newRow("rule of hashes") << QStringLiteral("#####\necho hi\n") << QStringLiteral("echo hi");
        QTest::newRow("javascript") << QStringLiteral(
                                           "'use strict';\nconst fs = require('fs');\n// Lists the inputs\n")
                                    << QStringLiteral("Lists the inputs");
        QTest::newRow("nothing meaningful") << QStringLiteral("\n\nimport os\n#!\n") << QString();
        QTest::newRow("empty") << QString() << QString();
        const QString longLine(300, QLatin1Char('a'));
        QTest::newRow("long line cut")
            << longLine << longLine.left(RunSummary::MaxLength - 1) + QChar(0x2026);
    }

    void firstMeaningfulLine()
    {
        QFETCH(QString, code);
        QFETCH(QString, line);
        QCOMPARE(RunSummary::firstMeaningfulLine(code), line);
    }

    void ofARunObject()
    {
        QCOMPARE(RunSummary::of({{QStringLiteral("summary"), QStringLiteral("from the daemon")},
                                 {QStringLiteral("code"), QStringLiteral("print(1)")}}),
                 QStringLiteral("from the daemon"));
        QCOMPARE(RunSummary::of({{QStringLiteral("language"), QStringLiteral("python")},
                                 {QStringLiteral("code"), QStringLiteral("print(1)")}}),
                 QStringLiteral("print(1)"));
        QCOMPARE(RunSummary::of({{QStringLiteral("language"), QStringLiteral("python")}}),
                 QStringLiteral("python"));
        QCOMPARE(RunSummary::of({{QStringLiteral("command"),
                                  QJsonArray{QStringLiteral("/bin/ls"), QStringLiteral("-la")}}}),
                 QStringLiteral("/bin/ls -la"));
        // A shell's -c: the program its script runs by name (the audit's probe), else the script's line.
        QCOMPARE(RunSummary::of({{QStringLiteral("command"),
                                  QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                             QStringLiteral("exec /tmp/probe \"$@\""),
                                             QStringLiteral("cordon-audit-probe"), QStringLiteral("pids")}}}),
                 QStringLiteral("cordon-audit-probe pids"));
        QCOMPARE(RunSummary::of({{QStringLiteral("command"),
                                  QJsonArray{QStringLiteral("bash"), QStringLiteral("-c"),
                                             QStringLiteral("# List the inputs\nls /mnt/data/inputs")}}}),
                 QStringLiteral("List the inputs"));
        QCOMPARE(RunSummary::ofCommand(
                     {QStringLiteral("/usr/bin/python3"), QStringLiteral("-c"), QStringLiteral("print(1)")}),
                 QStringLiteral("/usr/bin/python3 -c print(1)"));
    }
};

QTEST_GUILESS_MAIN(TestRunSummary)
#include "tst_runsummary.moc"
