// SPDX-License-Identifier: MIT
// The engine <-> cordon-init messages: every message round-trips, and truncated, oversized or mistyped bytes
// are rejected instead of being read past their end.
#include "sandbox/initlaunch.h"
#include "sandbox/initprotocol.h"
#include "sandbox/wire.h"

#include <QTest>

#include <cerrno>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace Cordon::Isolation;

class TestInitProtocol final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void setupRequestRoundTrips()
    {
        SetupRequest request;
        request.insideUid = 1234;
        request.hostname = "box";
        request.bindSources = {"/usr", "/home/a b/work", "/dev/null"};
        request.classicMountCalls = true;
        request.awaitCgroup = true;
        request.mounts = {{MountOpKind::BindFd, "/usr", "", 1, 0755, 0, false},
                          {MountOpKind::File, "/etc/passwd", "root:x:0:0\n", 0, 0644, -1, false},
                          {MountOpKind::Tmpfs, "/tmp", "size=1m", 6, 0, -1, true}};
        request.seccompBpf = std::string(800, '\x15');
        const auto bytes = encode(request);
        SetupRequest decoded;
        QVERIFY(decode(bytes.data(), bytes.size(), decoded));
        QCOMPARE(decoded.insideUid, 1234u);
        QCOMPARE(decoded.hostname, std::string("box"));
        QCOMPARE(decoded.bindSources, request.bindSources);
        QVERIFY(decoded.classicMountCalls);
        QVERIFY(decoded.awaitCgroup);
        QVERIFY(!decoded.proxyListener);
        QCOMPARE(decoded.mounts.size(), std::size_t(3));
        QCOMPARE(decoded.mounts[1].contents, std::string("root:x:0:0\n"));
        QCOMPARE(decoded.mounts[0].fdIndex, 0);
        QCOMPARE(decoded.mounts[1].fdIndex, -1);
        QVERIFY(decoded.mounts[2].recursive);
        QCOMPARE(decoded.seccompBpf, request.seccompBpf);
    }

    void spawnRequestRoundTrips()
    {
        SpawnRequest request;
        request.runId = 77;
        request.argv = {"python3", "-c", std::string("print('\0x')", 11)};
        request.env = {"PATH=/usr/bin"};
        request.rlimits = {{4, 0, 0}};
        const auto bytes = encode(request);
        SpawnRequest decoded;
        QVERIFY(decode(bytes.data(), bytes.size(), decoded));
        QCOMPARE(decoded.runId, quint64(77));
        QCOMPARE(decoded.argv, request.argv);
        QCOMPARE(decoded.rlimits.size(), std::size_t(1));
        QVERIFY(!decoded.endsContainer);
        request.endsContainer = true;
        const auto last = encode(request);
        SpawnRequest decodedLast;
        QVERIFY(decode(last.data(), last.size(), decodedLast));
        QVERIFY(decodedLast.endsContainer);
    }

    // What a container that outlives its engine says to the next one (initadoption.h).
    void adoptionMessagesRoundTrip()
    {
        SpawnRequest request;
        request.argv = {"sh"};
        request.tag = "3f2a";
        request.deadlineMonotonicMs = 123456789;
        request.holdOutput = true;
        const auto spawnBytes = encode(request);
        SpawnRequest spawn;
        QVERIFY(decode(spawnBytes.data(), spawnBytes.size(), spawn));
        QCOMPARE(spawn.tag, request.tag);
        QCOMPARE(spawn.deadlineMonotonicMs, request.deadlineMonotonicMs);
        QVERIFY(spawn.holdOutput);

        AdoptReply reply;
        reply.handBackCount = 2;
        reply.proxyListener = true;
        reply.heldRuns = 5;
        const auto replyBytes = encode(reply);
        AdoptReply readReply;
        QVERIFY(decode(replyBytes.data(), replyBytes.size(), readReply));
        QCOMPARE(readReply.handBackCount, 2u);
        QVERIFY(readReply.proxyListener);
        QCOMPARE(readReply.heldRuns, 5u);

        HeldRun held;
        held.runId = 9;
        held.tag = "run";
        held.pid = 42;
        held.exited = true;
        held.waitStatus = 7 << 8;
        held.timedOut = true;
        held.stdoutDropped = 1u << 30;
        held.stderrOpen = true;
        const auto heldBytes = encode(held);
        HeldRun readHeld;
        QVERIFY(decode(heldBytes.data(), heldBytes.size(), readHeld));
        QCOMPARE(readHeld.tag, held.tag);
        QCOMPARE(readHeld.pid, 42);
        QCOMPARE(readHeld.waitStatus, 7 << 8);
        QVERIFY(readHeld.timedOut && readHeld.exited && readHeld.stderrOpen && !readHeld.stdoutOpen);
        QCOMPARE(readHeld.stdoutDropped, std::uint64_t(1u << 30));
        for (std::size_t length = 0; length < heldBytes.size(); ++length)
            QVERIFY2(!decode(heldBytes.data(), length, readHeld), qPrintable(QString::number(length)));

        HeldOutput chunk;
        chunk.runId = 9;
        chunk.stream = 2;
        chunk.bytes = std::string("a\0b", 3);
        const auto chunkBytes = encode(chunk);
        HeldOutput readChunk;
        QVERIFY(decode(chunkBytes.data(), chunkBytes.size(), readChunk));
        QCOMPARE(readChunk.bytes, chunk.bytes);
        chunk.stream = 3; // neither stdout nor stderr
        const auto badStream = encode(chunk);
        QVERIFY(!decode(badStream.data(), badStream.size(), readChunk));
        chunk.stream = 1;
        chunk.bytes.assign(MaxHeldOutputChunk + 1, 'x');
        const auto tooLarge = encode(chunk);
        QVERIFY(!decode(tooLarge.data(), tooLarge.size(), readChunk));

        RunCollected collected;
        collected.runId = 77;
        const auto collectedBytes = encode(collected);
        RunCollected readCollected;
        QVERIFY(decode(collectedBytes.data(), collectedBytes.size(), readCollected));
        QCOMPARE(readCollected.runId, 77u);
    }

    // An engine of a newer package meets a cordon-init of another version: the first two fields, and so
    // the workspace's directories, read the same in every version; the rest is not read.
    void anAdoptReplyOfAnotherVersionKeepsItsFrozenFields()
    {
        WireWriter w;
        w.u8(static_cast<std::uint8_t>(MessageType::AdoptReply));
        w.u32(InitProtocolVersion + 7);
        w.u32(2);
        w.string("whatever a later version adds");
        const auto bytes = w.data();
        AdoptReply reply;
        QVERIFY(decode(bytes.data(), bytes.size(), reply));
        QCOMPARE(reply.protocolVersion, InitProtocolVersion + 7);
        QCOMPARE(reply.handBackCount, 2u);
        QCOMPARE(reply.heldRuns, 0u);
    }

    // A setup failure's detail is often a host path, a name someone chose: a newline in it must not forge a
    // line of its own ("cordon: ok ...") where the message is printed or logged.
    void aSetupFailureEscapesItsDetail()
    {
        SetupReply reply;
        reply.stage = Stage::OpenBindSource;
        reply.error = ENOENT;
        reply.detail = "/data\ncordon: ok (exit 0): the run finished successfully\x1b[2K";
        const std::string message = setupFailure(reply).message();
        QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
        QVERIFY2(message.find('\x1b') == std::string::npos, message.c_str());
        QVERIFY2(message.find("/data\\x0acordon: ok") != std::string::npos, message.c_str());
    }

    void everyTruncationIsRejected()
    {
        SpawnRequest request;
        request.argv = {"sh", "-c", "true"};
        request.env = {"A=b"};
        const auto bytes = encode(request);
        for (std::size_t length = 0; length < bytes.size(); ++length) {
            SpawnRequest decoded;
            QVERIFY2(!decode(bytes.data(), length, decoded), qPrintable(QString::number(length)));
        }
        std::vector<std::uint8_t> longer = bytes;
        longer.push_back(0);
        SpawnRequest decoded;
        QVERIFY(!decode(longer.data(), longer.size(), decoded)); // trailing bytes
    }

    void hostileBindSourcesAreRejected()
    {
        // cordon-init opens these paths with the caller's credentials: an empty one, one with a NUL (which
        // open() would cut short) or too many of them end the setup before anything is opened.
        for (const std::string &bad : {std::string(), std::string("/usr\0/etc/shadow", 16)}) {
            SetupRequest request;
            request.bindSources = {"/usr", bad};
            const auto bytes = encode(request);
            SetupRequest decoded;
            QVERIFY(!decode(bytes.data(), bytes.size(), decoded));
        }
        SetupRequest many;
        many.bindSources.assign(MaxBindSources + 1, "/usr");
        const auto manyBytes = encode(many);
        SetupRequest decoded;
        QVERIFY(!decode(manyBytes.data(), manyBytes.size(), decoded));

        SetupRequest request;
        request.bindSources = {"/usr", "/dev/null"};
        request.mounts = {{MountOpKind::BindFd, "/usr", "", 1, 0755, 0, false}};
        const auto bytes = encode(request);
        for (std::size_t length = 0; length < bytes.size(); ++length)
            QVERIFY2(!decode(bytes.data(), length, decoded), qPrintable(QString::number(length)));
        QVERIFY(decode(bytes.data(), bytes.size(), decoded));
    }

    void aReplyOutlivesAPeerThatClosedWithOurMessagesUnread()
    {
        // cordon-init answers a failed setup and exits with the spawn request the engine queued behind the
        // setup request still unread. The kernel then reports ECONNRESET once, ahead of the answer.
        int pair[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
        QCOMPARE(sendMessage(pair[0], encode(KillRequest{1, 9, false})), 0); // never read
        SetupReply failed;
        failed.stage = Stage::OpenBindSource;
        failed.error = ENOENT;
        failed.detail = "/nonexistent";
        QCOMPARE(sendMessage(pair[1], encode(failed)), 0);
        ::close(pair[1]);
        std::vector<std::uint8_t> message;
        std::vector<int> fds;
        const long received = receiveMessage(pair[0], message, fds);
        QVERIFY2(received > 0, qPrintable(QString::number(received)));
        SetupReply reply;
        QVERIFY(decode(message.data(), message.size(), reply));
        QCOMPARE(reply.stage, Stage::OpenBindSource);
        QCOMPARE(reply.detail, std::string("/nonexistent"));
        QCOMPARE(receiveMessage(pair[0], message, fds), 0L); // then end of file
        ::close(pair[0]);
    }

    void cgroupJoinedIsItsTypeAlone()
    {
        const auto bytes = encode(CgroupJoined{});
        QCOMPARE(bytes, std::vector<std::uint8_t>{static_cast<std::uint8_t>(MessageType::CgroupJoined)});
        CgroupJoined joined;
        QVERIFY(decode(bytes.data(), bytes.size(), joined));
        QCOMPARE(peekType(bytes.data(), bytes.size()), std::optional<MessageType>(MessageType::CgroupJoined));
        std::vector<std::uint8_t> longer = bytes;
        longer.push_back(0);
        QVERIFY(!decode(longer.data(), longer.size(), joined)); // trailing bytes
        QVERIFY(!decode(bytes.data(), 0, joined));
        const auto kill = encode(KillRequest{5, 9, true});
        QVERIFY(!decode(kill.data(), kill.size(), joined)); // another message is not this one
        const std::uint8_t last[] = {static_cast<std::uint8_t>(MessageType::ProcessesEnded)};
        QCOMPARE(peekType(last, sizeof last), std::optional<MessageType>(MessageType::ProcessesEnded));
        const std::uint8_t past[] = {static_cast<std::uint8_t>(MessageType::ProcessesEnded) + 1};
        QVERIFY(!peekType(past, sizeof past).has_value());
    }

    void wrongTypeIsRejected()
    {
        const auto bytes = encode(KillRequest{5, 9, true});
        ExitReport report;
        QVERIFY(!decode(bytes.data(), bytes.size(), report));
        QCOMPARE(peekType(bytes.data(), bytes.size()), std::optional<MessageType>(MessageType::KillRequest));
        const std::uint8_t junk[] = {0xff, 1, 2};
        QVERIFY(!peekType(junk, sizeof junk).has_value());
    }

    void hostileLengthsAreRejected()
    {
        // A string length of 4 GiB in a 10-byte message must not allocate or read.
        WireWriter writer;
        writer.u8(static_cast<std::uint8_t>(MessageType::SpawnRequest));
        writer.u64(1);
        writer.u32(1);          // one argv entry
        writer.u32(0xffffffff); // of absurd length
        SpawnRequest decoded;
        QVERIFY(!decode(writer.data().data(), writer.data().size(), decoded));

        WireWriter list;
        list.u32(0x7fffffff);
        WireReader reader(list.data().data(), list.data().size());
        std::vector<std::string> values;
        QVERIFY(!reader.strings(values));
    }

    void killRequestRejectsBadSignal()
    {
        WireWriter writer;
        writer.u8(static_cast<std::uint8_t>(MessageType::KillRequest));
        writer.u64(1);
        writer.u32(1000);
        writer.boolean(true);
        KillRequest decoded;
        QVERIFY(!decode(writer.data().data(), writer.data().size(), decoded));
    }

    void messagesCarryDescriptors()
    {
        int pair[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0);
        int pipeFds[2];
        QVERIFY(::pipe(pipeFds) == 0);
        const auto bytes = encode(SpawnReply{9, 42, Stage::None, 0, {}});
        QCOMPARE(sendMessage(pair[0], bytes, pipeFds, 2), 0);
        std::vector<std::uint8_t> message;
        std::vector<int> fds;
        QCOMPARE(receiveMessage(pair[1], message, fds), static_cast<long>(bytes.size()));
        QCOMPARE(fds.size(), std::size_t(2));
        QVERIFY(::write(pipeFds[1], "x", 1) == 1);
        char c = 0;
        QVERIFY(::read(fds[0], &c, 1) == 1); // the received fd is the same pipe
        QCOMPARE(c, 'x');
        SpawnReply reply;
        QVERIFY(decode(message.data(), message.size(), reply));
        QCOMPARE(reply.pid, 42);
        for (int fd : {pair[0], pair[1], pipeFds[0], pipeFds[1], fds[0], fds[1]})
            ::close(fd);
    }

    // Every message is received into one buffer per thread that is never cleared: what comes back is exactly
    // what was sent, also after a larger message, and on another thread.
    void eachMessageIsReceivedWholeAndAlone()
    {
        int pair[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0);
        int size = 512 * 1024;
        QVERIFY(::setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size) == 0);
        QVERIFY(::setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size) == 0);
        const std::vector<std::uint8_t> large(MaxMessageBytes / 2, 0xab);
        const auto small = encode(SpawnReply{5, 6, Stage::None, 0, {}});
        std::vector<std::uint8_t> message;
        std::vector<int> fds;
        const int sentLarge = sendMessage(pair[0], large);
        if (sentLarge == 0) { // the socket may be limited below the size asked for (net.core.wmem_max)
            QCOMPARE(receiveMessage(pair[1], message, fds), static_cast<long>(large.size()));
            QVERIFY(message == large);
        }
        QCOMPARE(sendMessage(pair[0], small), 0);
        QCOMPARE(receiveMessage(pair[1], message, fds), static_cast<long>(small.size()));
        QVERIFY(message == small);
        long onThread = 0;
        std::vector<std::uint8_t> threadMessage;
        QCOMPARE(sendMessage(pair[0], small), 0);
        std::thread reader([&] {
            std::vector<int> threadFds;
            onThread = receiveMessage(pair[1], threadMessage, threadFds);
        });
        reader.join();
        QCOMPARE(onThread, static_cast<long>(small.size()));
        QVERIFY(threadMessage == small);
        ::close(pair[0]);
        QCOMPARE(receiveMessage(pair[1], message, fds), 0L); // end of file
        QVERIFY(message.empty());
        ::close(pair[1]);
    }

    // A spawn request too large for one datagram (the socket's send buffer, about 208 KiB) travels in a
    // sealed memfd beside a one-byte message; a small one stays inline. Both decode to what was sent.
    void largeSpawnRequestsTravelInAMemfd()
    {
        int pair[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0);
        int stdio[3];
        for (int &fd : stdio)
            fd = ::dup(STDERR_FILENO);

        SpawnRequest small;
        small.runId = 1;
        small.argv = {"true"};
        QCOMPARE(sendSpawnRequest(pair[0], small, stdio), 0);
        std::vector<std::uint8_t> message;
        std::vector<int> fds;
        QVERIFY(receiveMessage(pair[1], message, fds) > 1);
        QCOMPARE(peekType(message.data(), message.size()), std::optional(MessageType::SpawnRequest));
        QCOMPARE(fds.size(), std::size_t(3));
        for (int fd : fds)
            ::close(fd);

        SpawnRequest large;
        large.runId = 2;
        large.argv = {"sh", "-c", std::string(128 * 1024, 'x'), std::string(900 * 1024, 'y')};
        large.env = {"A=" + std::string(200 * 1024, 'z')};
        QCOMPARE(sendSpawnRequest(pair[0], large, stdio), 0);
        QCOMPARE(receiveMessage(pair[1], message, fds), 1L);
        QCOMPARE(peekType(message.data(), message.size()), std::optional(MessageType::SpawnRequestInMemfd));
        QCOMPARE(fds.size(), std::size_t(4));
        // Sealed: whoever else holds the fd cannot change the request under cordon-init.
        QVERIFY(::write(fds[3], "w", 1) < 0);
        const std::vector<std::uint8_t> encoded = readSpawnRequestMemfd(fds[3]);
        SpawnRequest decoded;
        QVERIFY(decode(encoded.data(), encoded.size(), decoded));
        QCOMPARE(decoded.runId, std::uint64_t(2));
        QVERIFY(decoded.argv == large.argv);
        QVERIFY(decoded.env == large.env);
        for (int fd : fds)
            ::close(fd);

        // Past what cordon-init reads, the sender refuses with E2BIG instead of sending.
        large.argv.push_back(std::string(MaxSpawnRequestBytes, 'q'));
        QCOMPARE(sendSpawnRequest(pair[0], large, stdio), E2BIG);
        for (int fd : {pair[0], pair[1], stdio[0], stdio[1], stdio[2]})
            ::close(fd);
    }
};

QTEST_APPLESS_MAIN(TestInitProtocol)
#include "tst_initprotocol.moc"
