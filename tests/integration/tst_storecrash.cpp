// SPDX-License-Identifier: MIT
// Crash safety of the history: a writer process recording runs and events in a tight loop is killed with
// SIGKILL at an arbitrary moment, several times over. After each kill the database must reopen, pass
// PRAGMA integrity_check, hold every row the writer had reported as committed, and turn the run that was in
// flight into an interrupted one. Needs no privileges.
#include "store/historystore.h"

#include "testutil.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QObject>
#include <QTemporaryDir>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

using namespace Cordon::Store;

namespace {

constexpr int ReportFd = 3;
constexpr int Rounds = 5;
constexpr int KillAfterMs = 200;
constexpr int StartTimeoutMs = 30000;

const QByteArray PolicyJson = R"({"name":"crash"})";

QString sha256Hex(const QByteArray &data)
{
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

QString runId(int round, quint32 index)
{
    return QStringLiteral("round%1-run%2").arg(round).arg(index);
}

// 16 to 80 KiB per run, with NUL bytes, different for every run: large enough that a kill often lands inside
// a write or a checkpoint, and a torn row would show.
QByteArray outputFor(int round, quint32 index)
{
    QByteArray out(16 * 1024 * int(1 + index % 5), '\0');
    for (qsizetype i = 0; i < out.size(); ++i)
        out[i] = char((i * 31 + index * 7 + round) % 251);
    return out;
}

[[noreturn]] void writerFailed(const char *what, const Cordon::Error &error)
{
    std::fprintf(stderr, "writer: %s: %s: %s\n", what, error.code().c_str(), error.message().c_str());
    std::fflush(stderr);
    _exit(2);
}

// The child: records until it is killed. After each iteration's last commit it reports the index on fd 3,
// so whatever the parent has read was committed before the kill.
[[noreturn]] void writerMain(const QString &path, int round)
{
    auto opened = HistoryStore::open(path);
    if (!opened)
        writerFailed("open", opened.error());
    HistoryStore &store = **opened;
    const QString policy = sha256Hex(PolicyJson);
    if (auto ok = store.recordPolicyVersion(policy, PolicyJson); !ok)
        writerFailed("policy", ok.error());
    ContainerRecord container;
    container.id = QStringLiteral("box%1").arg(round);
    container.state = QStringLiteral("running");
    container.policyVersion = policy;
    container.createdAt = 1;
    if (auto ok = store.saveContainer(container); !ok)
        writerFailed("container", ok.error());

    for (quint32 index = 0;; ++index) {
        RunRecord run;
        run.id = runId(round, index);
        run.containerId = container.id;
        run.policyVersion = policy;
        run.command = {QStringLiteral("true")};
        run.startedAt = 1000 + index;
        if (auto ok = store.insertRun(run); !ok)
            writerFailed("insert run", ok.error());
        EventRecord event;
        event.at = 1000 + index;
        event.containerId = container.id;
        event.runId = run.id;
        event.kind = QStringLiteral("run.started");
        if (auto ok = store.recordEvent(event); !ok)
            writerFailed("record event", ok.error());
        // Even runs finish; odd ones stay running, as if cut off by the crash.
        if (index % 2 == 0) {
            run.state = QStringLiteral("finished");
            run.endedAt = 2000 + index;
            run.errorClass = QStringLiteral("ok");
            run.exitCode = 0;
            run.stdoutData = outputFor(round, index);
            if (auto ok = store.finishRun(run); !ok)
                writerFailed("finish run", ok.error());
        }
        if (::write(ReportFd, &index, sizeof index) != sizeof index)
            _exit(3);
    }
}

} // namespace

class TestStoreCrash final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void survivesSigkillMidWrite()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("history.db"));
        const QByteArray self = QFile::encodeName(QCoreApplication::applicationFilePath());
        const QByteArray pathArg = QFile::encodeName(path);

        for (int round = 0; round < Rounds; ++round) {
            QList<quint32> reported;
            QVERIFY(killWriterMidWrite(self, pathArg, round, &reported));
            // Proof the writer was really writing when it died, not failing at start-up.
            QVERIFY2(reported.size() > 10,
                     qPrintable(QStringLiteral("only %1 iterations").arg(reported.size())));
            qInfo("round %d: %lld iterations committed before SIGKILL", round, qint64(reported.size()));
            for (qsizetype i = 0; i < reported.size(); ++i)
                QCOMPARE(reported.at(i), quint32(i));

            auto opened = HistoryStore::open(path);
            QVERIFY_RESULT(opened);
            HistoryStore &store = **opened;
            auto ok = store.integrityCheck();
            QVERIFY_RESULT(ok);
            QVERIFY(*ok);

            const qint64 now = 99000 + round;
            const qint64 oddReported = reported.size() / 2;
            auto interrupted = store.markRunningAsInterrupted(now);
            QVERIFY_RESULT(interrupted);
            // The odd runs reported, plus at most the one in flight when the kill came.
            QVERIFY2(
                *interrupted == oddReported || *interrupted == oddReported + 1,
                qPrintable(QStringLiteral("%1 interrupted, %2 odd runs").arg(*interrupted).arg(oddReported)));

            for (const quint32 index : std::as_const(reported)) {
                auto run = store.run(runId(round, index));
                QVERIFY_RESULT(run);
                EventFilter filter;
                filter.runId = run->id;
                auto events = store.events(filter);
                QVERIFY_RESULT(events);
                QCOMPARE(events->total, 1);
                if (index % 2 == 0) {
                    QCOMPARE(run->state, QStringLiteral("finished"));
                    QCOMPARE(run->endedAt, qint64(2000 + index));
                    QVERIFY(run->stdoutData == outputFor(round, index));
                } else {
                    QCOMPARE(run->state, QStringLiteral("interrupted"));
                    QCOMPARE(run->endedAt, now);
                }
            }
            // Nothing is left running, and the run count is what was reported plus at most the one in flight.
            RunFilter running;
            running.state = QStringLiteral("running");
            auto stillRunning = store.runs(running);
            QVERIFY_RESULT(stillRunning);
            QCOMPARE(stillRunning->total, 0);
            RunFilter thisRound;
            thisRound.containerId = QStringLiteral("box%1").arg(round);
            thisRound.limit = 0;
            auto all = store.runs(thisRound);
            QVERIFY_RESULT(all);
            QVERIFY(all->total == reported.size() || all->total == reported.size() + 1);
        }

        auto final = HistoryStore::open(path);
        QVERIFY_RESULT(final);
        auto ok = (*final)->integrityCheck();
        QVERIFY_RESULT(ok);
        QVERIFY(*ok);
        auto check =
            (*final)->database().prepare("PRAGMA foreign_key_check", QStringLiteral("foreign key check"));
        QVERIFY_RESULT(check);
        auto violation = check->step();
        QVERIFY_RESULT(violation);
        QVERIFY(!*violation);
    }

private:
    // Starts the writer, collects its reports for KillAfterMs, SIGKILLs it and reaps it.
    static bool killWriterMidWrite(const QByteArray &self, const QByteArray &path, int round,
                                   QList<quint32> *reported)
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return false;
        const QByteArray roundArg = QByteArray::number(round);
        // Everything the child needs is prepared before fork(): between fork and exec it only makes system
        // calls. The writer is this binary re-executed, because a forked copy of a Qt process must not go on
        // using Qt.
        const char *argv[] = {self.constData(), "--store-writer", path.constData(), roundArg.constData(),
                              nullptr};
        const pid_t pid = ::fork();
        if (pid < 0)
            return false;
        if (pid == 0) {
            if (::dup2(fds[1], ReportFd) < 0)
                _exit(4);
            ::execv(argv[0], const_cast<char *const *>(argv));
            _exit(5);
        }
        ::close(fds[1]);

        QByteArray buffer;
        // The kill comes KillAfterMs after the writer's first commit, not after its start: on a loaded
        // machine starting the process alone can take that long, and the test must kill a writer that writes.
        pollfd first{fds[0], POLLIN, 0};
        if (::poll(&first, 1, StartTimeoutMs) <= 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            ::close(fds[0]);
            qWarning("the writer reported nothing within %d ms", StartTimeoutMs);
            return false;
        }
        timespec start{};
        ::clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
            timespec nowTs{};
            ::clock_gettime(CLOCK_MONOTONIC, &nowTs);
            const qint64 elapsed =
                (nowTs.tv_sec - start.tv_sec) * 1000 + (nowTs.tv_nsec - start.tv_nsec) / 1000000;
            if (elapsed >= KillAfterMs)
                break;
            pollfd pfd{fds[0], POLLIN, 0};
            if (::poll(&pfd, 1, int(KillAfterMs - elapsed)) > 0) {
                char chunk[4096];
                const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
                if (n > 0)
                    buffer.append(chunk, n);
                else if (n == 0)
                    break; // the writer is gone already
            }
        }
        ::kill(pid, SIGKILL);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        // Reports written before the kill are still in the pipe.
        for (;;) {
            char chunk[4096];
            const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
            if (n <= 0)
                break;
            buffer.append(chunk, n);
        }
        ::close(fds[0]);

        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
            qWarning("the writer did not die by SIGKILL (status %d); see its message above", status);
            return false;
        }
        // A report is written whole or not at all (a pipe write of 4 bytes is atomic).
        for (qsizetype offset = 0; offset + qsizetype(sizeof(quint32)) <= buffer.size();
             offset += sizeof(quint32)) {
            quint32 index = 0;
            std::memcpy(&index, buffer.constData() + offset, sizeof index);
            reported->append(index);
        }
        return true;
    }
};

int main(int argc, char **argv)
{
    if (argc == 4 && std::strcmp(argv[1], "--store-writer") == 0)
        writerMain(QFile::decodeName(argv[2]), std::atoi(argv[3]));
    QCoreApplication app(argc, argv);
    TestStoreCrash test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_storecrash.moc"
