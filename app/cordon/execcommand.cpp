// SPDX-License-Identifier: MIT
// cordon exec ID -- CMD...: a run inside a long-lived container, its output streamed live from cordond's
// events. Afterwards the same summary as `cordon run`, and the exit status mirrors the run.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/notifiers.h"
#include "core/plainbridge.h"
#include "daemon/lite/runreport.h"
#include "daemon/lite/signalpipe.h"
#include "sandbox/duration.h"

#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Cli {

namespace {

constexpr qint64 MaxCodeBytes = 8 * 1024 * 1024;
// Each run.stdin request carries one chunk and the next is read only after the daemon took it, so stdin
// that arrives faster than the program reads it queues in this process's pipe, not in the daemon.
constexpr qint64 StdinChunkBytes = 1024 * 1024;

QString languageForFile(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix();
    if (suffix == QLatin1String("py"))
        return QStringLiteral("python");
    if (suffix == QLatin1String("sh") || suffix == QLatin1String("bash"))
        return QStringLiteral("bash");
    if (suffix == QLatin1String("js") || suffix == QLatin1String("mjs") || suffix == QLatin1String("cjs"))
        return QStringLiteral("node");
    return {};
}

void writeRaw(FILE *stream, const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stream);
    std::fflush(stream);
}

// Drives one run from run.exec to its end: echoes run.output events, forwards stdin, turns Ctrl-C into
// run.cancel, and ends with the daemon's final `run` object (run.wait, or run.get for a repeated key).
class ExecSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecSession)

public:
    ExecSession(Daemon::DaemonClient &client, bool echo, bool forwardStdin)
        : m_client(client), m_echo(echo), m_forwardStdin(forwardStdin)
    {
        connect(&m_client, &Daemon::DaemonClient::eventReceived, this, &ExecSession::onEvent);
        connect(&m_client, &Daemon::DaemonClient::disconnected, this, [this] {
            finishWith(fail(QStringLiteral("daemon.disconnected"),
                            QString::fromStdString(Lite::execDisconnected(m_runId.toStdString()))));
        });
    }

    ~ExecSession() override
    {
        retireNotifier(m_stdinNotifier);
        retireNotifier(m_signalNotifier);
    }

    // The final result object ({"run": ...}), or why there is none. Returns early with abandoned() set
    // when the user pressed Ctrl-C twice.
    Result<QJsonObject> run(const QJsonObject &params)
    {
        watchSignals();
        m_client.call(QStringLiteral("run.exec"), params, [this](Result<QJsonObject> result) {
            if (!result)
                return finishWith(fail(result.error()));
            onStarted(result->value(QStringLiteral("run")).toObject());
        });
        if (!m_result)
            m_loop.exec();
        return *m_result;
    }

    bool abandoned() const { return m_abandoned; }
    const QString &runId() const { return m_runId; }

private:
    void onStarted(const QJsonObject &run)
    {
        m_runId = run.value(QStringLiteral("id")).toString();
        for (const QJsonObject &event : std::as_const(m_early))
            echo(event);
        m_early.clear();
        if (m_cancelRequested)
            cancel();
        if (run.value(QStringLiteral("state")).toString() != QLatin1String("running")) {
            // A repeated idempotency key answers with the earlier run, which has ended: nothing will be
            // streamed, so its captured output comes from the history instead.
            m_client.call(
                QStringLiteral("run.get"), {{QStringLiteral("run_id"), m_runId}},
                [this](Result<QJsonObject> result) {
                    if (result && m_echo) {
                        const QJsonObject finished = result->value(QStringLiteral("run")).toObject();
                        writeRaw(stdout, finished.value(QStringLiteral("stdout")).toString().toUtf8());
                        writeRaw(stderr, finished.value(QStringLiteral("stderr")).toString().toUtf8());
                        if (finished.value(QStringLiteral("stdout_paged")).toBool() ||
                            finished.value(QStringLiteral("stderr_paged")).toBool())
                            writeRaw(stderr,
                                     QStringLiteral("cordon: the output above is cut at 512 KiB per stream; "
                                                    "`cordon logs %1` prints all of it\n")
                                         .arg(m_runId)
                                         .toUtf8());
                    }
                    finishWith(std::move(result));
                });
            return;
        }
        if (m_forwardStdin)
            startStdin();
        // The daemon publishes every run.output event of the run before it answers run.wait, on this same
        // connection, so once the answer is here all output has been echoed.
        m_client.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), m_runId}},
                      [this](Result<QJsonObject> result) { finishWith(std::move(result)); });
    }

    void onEvent(const QString &name, const QJsonObject &data)
    {
        if (name != QLatin1String("run.output"))
            return;
        if (m_runId.isEmpty())
            m_early.append(data); // before run.exec answered; kept until we know which run is ours
        else
            echo(data);
    }

    void echo(const QJsonObject &data)
    {
        if (!m_echo || data.value(QStringLiteral("run_id")).toString() != m_runId)
            return;
        const QByteArray chunk =
            QByteArray::fromBase64(data.value(QStringLiteral("data")).toString().toLatin1());
        writeRaw(data.value(QStringLiteral("stream")).toString() == QLatin1String("stderr") ? stderr : stdout,
                 chunk);
    }

    void startStdin()
    {
        m_stdinNotifier = std::make_unique<QSocketNotifier>(STDIN_FILENO, QSocketNotifier::Read);
        connect(m_stdinNotifier.get(), &QSocketNotifier::activated, this, &ExecSession::readStdin);
    }

    void readStdin()
    {
        if (!m_stdinNotifier)
            return;
        QByteArray chunk(StdinChunkBytes, Qt::Uninitialized);
        ssize_t n;
        do {
            n = ::read(STDIN_FILENO, chunk.data(), static_cast<size_t>(chunk.size()));
        } while (n < 0 && errno == EINTR);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        const bool eof = n <= 0;
        chunk.truncate(qMax<ssize_t>(0, n));
        m_stdinNotifier->setEnabled(false);
        QJsonObject params{{QStringLiteral("run_id"), m_runId}};
        if (eof)
            params.insert(QStringLiteral("eof"), true);
        else
            params.insert(QStringLiteral("data"), QString::fromLatin1(chunk.toBase64()));
        m_client.call(QStringLiteral("run.stdin"), params, [this, eof](Result<QJsonObject> result) {
            // The program closed its stdin or ended: like a pipe whose reader went away, stop feeding it.
            if (!result || eof)
                retireNotifier(m_stdinNotifier);
            else if (m_stdinNotifier)
                m_stdinNotifier->setEnabled(true);
        });
    }

    void watchSignals()
    {
        const int fd = Lite::interruptSignalPipe();
        if (fd < 0)
            return; // without the pipe Ctrl-C keeps its default: the CLI ends, the run goes on
        m_signalNotifier = std::make_unique<QSocketNotifier>(fd, QSocketNotifier::Read);
        connect(m_signalNotifier.get(), &QSocketNotifier::activated, this, [this, fd] {
            Lite::drainSignalPipe(fd);
            onInterrupt();
        });
    }

    void onInterrupt()
    {
        if (m_cancelRequested) {
            // The second Ctrl-C: stop waiting. The run was already told to stop.
            m_abandoned = true;
            finishWith(fail(QStringLiteral("cli.interrupted"), QStringLiteral("interrupted")));
            return;
        }
        m_cancelRequested = true;
        printErr(QString::fromStdString(Lite::execCancelling()));
        if (!m_runId.isEmpty())
            cancel();
    }

    void cancel()
    {
        m_client.call(QStringLiteral("run.cancel"), {{QStringLiteral("run_id"), m_runId}},
                      [](const Result<QJsonObject> &) {});
    }

    void finishWith(Result<QJsonObject> result)
    {
        if (m_result)
            return;
        m_result = std::move(result);
        retireNotifier(m_stdinNotifier);
        m_loop.quit();
    }

    Daemon::DaemonClient &m_client;
    bool m_echo;
    bool m_forwardStdin;
    QEventLoop m_loop;
    QString m_runId;
    QList<QJsonObject> m_early;
    std::optional<Result<QJsonObject>> m_result;
    std::unique_ptr<QSocketNotifier> m_stdinNotifier;
    std::unique_ptr<QSocketNotifier> m_signalNotifier;
    bool m_cancelRequested = false;
    bool m_abandoned = false;
};

} // namespace

int execCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon exec");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Run a command, or code in python, bash or node, inside a running container. Files in /mnt/data and\n"
        "background processes from earlier runs are still there. Output is streamed as it is produced;\n"
        "afterwards a summary goes to stderr. The exit status mirrors the run: its exit code, 128+signal, "
        "or\n"
        "125 when the program did not run (the daemon refused it or could not be reached). Ctrl-C cancels "
        "the\n"
        "run. Options go before ID."));
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    parser.addHelpOption();
    const QCommandLineOption stdinOption(
        QStringLiteral("stdin"),
        QStringLiteral("Forward this program's stdin to the run (else it reads nothing)."));
    const QCommandLineOption languageOption(
        QStringLiteral("language"), QStringLiteral("Run code instead of a command: python, bash or node."),
        QStringLiteral("language"));
    const QCommandLineOption codeOption(QStringLiteral("code"), QStringLiteral("The code to run."),
                                        QStringLiteral("text"));
    const QCommandLineOption codeFileOption(
        QStringLiteral("code-file"),
        QStringLiteral("Read the code from a file; .py, .sh and .js imply --language."),
        QStringLiteral("file"));
    const QCommandLineOption timeoutOption(
        QStringLiteral("timeout"),
        QStringLiteral("Wall-time limit in whole seconds, e.g. 30s or 5m (1s to 24h); never more than the "
                       "policy's run_timeout_s."),
        QStringLiteral("duration"));
    const QCommandLineOption keyOption(
        QStringLiteral("key"),
        QStringLiteral("Idempotency key: an exec repeated with the same key returns the first run instead of "
                       "running again."),
        QStringLiteral("key"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"),
        QStringLiteral("Print only the daemon's final result (the run, with its output) as JSON."));
    parser.addOptions(
        {stdinOption, languageOption, codeOption, codeFileOption, timeoutOption, keyOption, jsonOption});
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The container."),
                                 QStringLiteral("ID"));
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("The command and its arguments (not with --language)."),
                                 QStringLiteral("[--] [CMD [ARGS...]]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;

    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(command,
                          QStringLiteral("no container given. Example: cordon exec ID -- python3 -V"));
    const QString reference = positional.takeFirst();
    // After the first positional argument the parser keeps everything, including the `--` separator.
    if (!positional.isEmpty() && positional.first() == QLatin1String("--"))
        positional.removeFirst();

    QString language = parser.value(languageOption);
    QString code = parser.value(codeOption);
    if (parser.isSet(codeOption) && parser.isSet(codeFileOption))
        return usageError(command, QStringLiteral("give --code or --code-file, not both"));
    if (parser.isSet(codeFileOption)) {
        const QString path = parser.value(codeFileOption);
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return usageError(
                command, QStringLiteral("cannot read --code-file `%1`: %2").arg(path, file.errorString()));
        const QByteArray bytes = file.read(MaxCodeBytes + 1);
        if (bytes.size() > MaxCodeBytes)
            return usageError(command, QStringLiteral("--code-file `%1` is larger than 8 MiB").arg(path));
        code = QString::fromUtf8(bytes);
        if (language.isEmpty())
            language = languageForFile(path);
        if (language.isEmpty())
            return usageError(command,
                              QStringLiteral("cannot tell the language of `%1`: give --language").arg(path));
    }
    const bool hasCode = parser.isSet(codeOption) || parser.isSet(codeFileOption);
    if (!language.isEmpty() && !hasCode)
        return usageError(command, QStringLiteral("--language needs --code TEXT or --code-file FILE"));
    if (hasCode && language.isEmpty())
        return usageError(command, QStringLiteral("--code needs --language (python, bash or node)"));
    if (!language.isEmpty() && !positional.isEmpty())
        return usageError(command,
                          QStringLiteral("give either a command after ID or --language with code, not both"));
    if (language.isEmpty() && positional.isEmpty())
        return usageError(
            command,
            QStringLiteral("no command given. Example: cordon exec %1 -- python3 -V").arg(reference));
    if (!language.isEmpty() && language != QLatin1String("python") && language != QLatin1String("bash") &&
        language != QLatin1String("node"))
        return usageError(command,
                          QStringLiteral("unknown --language `%1`: use python, bash or node").arg(language));

    QJsonObject params;
    if (language.isEmpty()) {
        params.insert(QStringLiteral("command"), QJsonArray::fromStringList(positional));
    } else {
        params.insert(QStringLiteral("language"), language);
        params.insert(QStringLiteral("code"), code);
    }
    if (parser.isSet(timeoutOption)) {
        auto seconds = parseRunTimeoutSeconds(toPlain(parser.value(timeoutOption)));
        if (!seconds) {
            printError(seconds.error().wrap("--timeout"));
            return UsageError;
        }
        params.insert(QStringLiteral("timeout_s"), *seconds);
    }
    if (parser.isSet(keyOption)) {
        if (parser.value(keyOption).isEmpty())
            return usageError(command, QStringLiteral("--key must not be empty"));
        params.insert(QStringLiteral("idempotency_key"), parser.value(keyOption));
    }
    const bool forwardStdin = parser.isSet(stdinOption);
    if (forwardStdin)
        params.insert(QStringLiteral("stdin_open"), true);

    // Every failure before the run exists means the program did not run: 125, as for `cordon run`.
    DaemonSession session;
    if (auto connected = session.connect(); !connected) {
        reportError(connected.error());
        return SetupFailure;
    }
    auto container = session.resolveContainer(reference);
    if (!container) {
        reportError(container.error());
        return SetupFailure;
    }
    const QString containerId = container->value(QStringLiteral("id")).toString();
    params.insert(QStringLiteral("container"), containerId);
    // Subscribed before the exec, so that not even the first chunk of output can be missed.
    auto subscribed = session.call(QStringLiteral("subscribe"),
                                   {{QStringLiteral("topics"), QJsonArray{QStringLiteral("runs")}},
                                    {QStringLiteral("container"), containerId},
                                    {QStringLiteral("runs"), QStringLiteral("own")}});
    if (!subscribed) {
        reportError(subscribed.error());
        return SetupFailure;
    }

    const bool json = parser.isSet(jsonOption);
    ExecSession exec(session.client(), !json, forwardStdin);
    auto finished = exec.run(params);
    if (exec.abandoned()) {
        printErr(QString::fromStdString(Lite::execStoppedWaiting(exec.runId().toStdString())));
        return Cordon::InterruptedStatus;
    }
    if (!finished) {
        reportError(finished.error());
        return SetupFailure;
    }
    const QJsonObject run = finished->value(QStringLiteral("run")).toObject();
    if (json)
        printJson(*finished);
    else
        printErr(summarizeRun(run, *container) +
                 QString::fromStdString(Lite::execFooter(exec.runId().toStdString())));
    return runExitStatus(run);
}

} // namespace Cordon::Cli

#include "execcommand.moc"
