// SPDX-License-Identifier: MIT
// What the proxy holds for the bytes it read: an allocation the size of what arrived, not of the largest
// chunk it may read. Each connection keeps its unparsed input for its whole life, and a chunk queued for
// writing keeps its allocation until it is written, so a request head that held a full chunk's allocation
// made a few hundred connections cost a hundred megabytes.
#include "network/proxylimits.h"

#include <QBuffer>
#include <QObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace Cordon::Network;

class TestReadChunk final : public QObject
{
    Q_OBJECT

private slots:
    void smallInputSmallAllocation();
    void largeInputAtMostAChunk();
    void nothingBufferedReadsNothing();
};

void TestReadChunk::smallInputSmallAllocation()
{
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, server.serverPort());
    QVERIFY(server.waitForNewConnection(5000));
    QTcpSocket *accepted = server.nextPendingConnection();
    QVERIFY(accepted);
    QVERIFY(client.waitForConnected(5000));
    const QByteArray head = "GET http://h1.example/ HTTP/1.1\r\nHost: h1.example\r\n\r\n";
    client.write(head);
    QVERIFY(client.waitForBytesWritten(5000));
    QTRY_COMPARE(accepted->bytesAvailable(), head.size());

    const QByteArray read = readChunk(*accepted);
    QCOMPARE(read, head);
    // The socket hands over its own buffer block (16 KiB in Qt 6.4); read(ChunkBytes) allocated 512 KiB.
    QVERIFY2(read.capacity() <= ChunkBytes / 8, qPrintable(QString::number(read.capacity())));
}

void TestReadChunk::largeInputAtMostAChunk()
{
    QByteArray data(3 * ChunkBytes / 2, 'x');
    QBuffer buffer(&data);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    const QByteArray first = readChunk(buffer);
    QCOMPARE(first.size(), ChunkBytes);
    const QByteArray second = readChunk(buffer);
    QCOMPARE(second.size(), ChunkBytes / 2);
    // Sized for what was there (QByteArray rounds up); read(ChunkBytes) allocated twice a chunk.
    QVERIFY2(second.capacity() <= ChunkBytes, qPrintable(QString::number(second.capacity())));
    QVERIFY(readChunk(buffer).isEmpty());
}

void TestReadChunk::nothingBufferedReadsNothing()
{
    QByteArray data;
    QBuffer buffer(&data);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    const QByteArray read = readChunk(buffer);
    QVERIFY(read.isEmpty());
    QCOMPARE(read.capacity(), 0);
}

QTEST_GUILESS_MAIN(TestReadChunk)
#include "tst_readchunk.moc"
