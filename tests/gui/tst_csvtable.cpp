// SPDX-License-Identifier: MIT
// The CSV preview's parser on literal strings: quotes, separators, line breaks
// inside quotes, and a text cut in the middle of a row (the preview reads only
// the start of a file).
#include "csvtable.h"

#include <QTest>

using Cordon::Ui::CsvTable;

class CsvTableTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("complete");
        QTest::addColumn<QList<QStringList>>("rows");
        QTest::addColumn<bool>("truncated");
        QTest::newRow("plain") << QStringLiteral("a,b\n1,2\n") << true
                               << QList<QStringList>{{QStringLiteral("a"), QStringLiteral("b")},
                                                     {QStringLiteral("1"), QStringLiteral("2")}}
                               << false;
        QTest::newRow("no final newline") << QStringLiteral("a,b\n1,2") << true
                                          << QList<QStringList>{{QStringLiteral("a"), QStringLiteral("b")},
                                                                {QStringLiteral("1"), QStringLiteral("2")}}
                                          << false;
        QTest::newRow("crlf and blank lines")
            << QStringLiteral("a,b\r\n\r\n1,2\r\n") << true
            << QList<QStringList>{{QStringLiteral("a"), QStringLiteral("b")},
                                  {QStringLiteral("1"), QStringLiteral("2")}}
            << false;
        QTest::newRow("quotes") << QStringLiteral("\"x, y\",\"say \"\"hi\"\"\"\n") << true
                                << QList<QStringList>{{QStringLiteral("x, y"), QStringLiteral("say \"hi\"")}}
                                << false;
        QTest::newRow("newline in quotes")
            << QStringLiteral("\"two\nlines\",b\n") << true
            << QList<QStringList>{{QStringLiteral("two\nlines"), QStringLiteral("b")}} << false;
        QTest::newRow("semicolons") << QStringLiteral("a;b\n1;2,5\n") << true
                                    << QList<QStringList>{{QStringLiteral("a"), QStringLiteral("b")},
                                                          {QStringLiteral("1"), QStringLiteral("2,5")}}
                                    << false;
        QTest::newRow("empty fields")
            << QStringLiteral(",\n") << true << QList<QStringList>{{QString(), QString()}} << false;
        QTest::newRow("cut mid row") << QStringLiteral("a,b\n1,2\n3,") << false
                                     << QList<QStringList>{{QStringLiteral("a"), QStringLiteral("b")},
                                                           {QStringLiteral("1"), QStringLiteral("2")}}
                                     << true;
        QTest::newRow("cut inside quotes")
            << QStringLiteral("a\n\"open") << true << QList<QStringList>{{QStringLiteral("a")}} << true;
    }

    void parse()
    {
        QFETCH(QString, text);
        QFETCH(bool, complete);
        QFETCH(QList<QStringList>, rows);
        QFETCH(bool, truncated);
        const CsvTable table = CsvTable::parse(text, 100, complete);
        QCOMPARE(table.rows, rows);
        QCOMPARE(table.truncated, truncated);
    }

    void stopsAtMaxRows()
    {
        const CsvTable table = CsvTable::parse(QStringLiteral("1\n2\n3\n4\n"), 2, true);
        QCOMPARE(table.rows.size(), 2);
        QVERIFY(table.truncated);
        const CsvTable exact = CsvTable::parse(QStringLiteral("1\n2\n"), 2, true);
        QCOMPARE(exact.rows.size(), 2);
        QVERIFY(!exact.truncated);
    }
};

QTEST_GUILESS_MAIN(CsvTableTest)

#include "tst_csvtable.moc"
