// SPDX-License-Identifier: MIT
// cordon secret: the host's secret store, through the daemon (docs/secrets.md).
//   cordon secret set NAME [--from-file PATH]   the value from standard input (not echoed on a terminal)
//   cordon secret ls [--json]                   names, when set, fingerprints, the containers using each
//   cordon secret rm NAME
// A value is read here and sent to the daemon over the user's own socket; it is never printed, and never
// taken from the command line, where every process of the user could read it in /proc.
#include "cliformat.h"
#include "clioutput.h"
#include "cliparse.h"
#include "commands.h"
#include "daemoncli.h"

#include "sandbox/readall.h"
#include "sandbox/secrets/secretrules.h"
#include "sandbox/uniquefd.h"

#include <QJsonArray>

#include <csignal>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace Cordon::Cli {

namespace {

// More than a value may be, so that the daemon's size error (with the real size) is the one shown.
constexpr std::size_t ReadCap = Secrets::MaxValueBytes * 2;

// One trailing line break, as `echo` and editors leave it, is not part of the value.
std::string withoutLineEnd(std::string text)
{
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    if (!text.empty() && text.back() == '\r')
        text.pop_back();
    return text;
}

// The terminal's settings while echo is off, for a signal that ends us before they are restored.
termios g_savedTerminal{};

extern "C" void restoreTerminalAndRaise(int signalNumber)
{
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_savedTerminal); // async-signal-safe
    ::signal(signalNumber, SIG_DFL);
    ::raise(signalNumber);
}

// Reads one line from the terminal with echo off; the prompt goes to stderr so that stdout stays clean.
// Ctrl-C, a hang-up or a kill while it waits give the terminal its echo back before the program ends.
Result<std::string> readFromTerminal(const QString &name)
{
    termios saved{};
    if (::tcgetattr(STDIN_FILENO, &saved) != 0)
        return failErrno(std::string("cli.input"), "read the terminal's settings", errno);
    g_savedTerminal = saved;
    constexpr int Signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction restoring
    {
    };
    restoring.sa_handler = restoreTerminalAndRaise;
    sigemptyset(&restoring.sa_mask);
    struct sigaction previous[std::size(Signals)]{};
    for (std::size_t i = 0; i < std::size(Signals); ++i) {
        ::sigaction(Signals[i], &restoring, &previous[i]);
        // A signal this process ignores (SIGINT in a background job) stays ignored.
        if (previous[i].sa_handler == SIG_IGN)
            ::sigaction(Signals[i], &previous[i], nullptr);
    }
    // Ctrl-Z stops us with echo off; the shell saves and restores the terminal's settings around a job
    // it stops (bash and zsh do), so it is left to it.
    termios quiet = saved;
    quiet.c_lflag &= ~tcflag_t(ECHO);
    quiet.c_lflag |= ECHONL;
    printErr(QStringLiteral("value for %1 (not shown): ").arg(name));
    const auto restoreHandlers = [&] {
        for (std::size_t i = 0; i < std::size(Signals); ++i)
            ::sigaction(Signals[i], &previous[i], nullptr);
    };
    if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) {
        const int error = errno;
        restoreHandlers();
        return failErrno(std::string("cli.input"), "turn the terminal's echo off", error);
    }
    std::string line;
    char c = 0;
    ssize_t got = 0;
    while ((got = ::read(STDIN_FILENO, &c, 1)) == 1 && c != '\n' && line.size() <= ReadCap)
        line += c;
    const int readErrno = errno;
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    restoreHandlers();
    if (got < 0)
        return failErrno(std::string("cli.input"), "read the value", readErrno);
    return line;
}

Result<std::string> readValue(const QString &name, const QString &fromFile)
{
    if (!fromFile.isEmpty()) {
        auto text = readRegularFile(fromFile.toStdString(), ReadCap, "the value file", "cli.input",
                                    "cli.input", "secrets.bad_value");
        if (!text)
            return text;
        return withoutLineEnd(std::move(*text));
    }
    if (::isatty(STDIN_FILENO))
        return readFromTerminal(name);
    auto text = readToEnd(STDIN_FILENO, ReadCap, "standard input", "cli.input", "secrets.bad_value");
    if (!text)
        return text;
    return withoutLineEnd(std::move(*text));
}

QString usedByText(const QJsonArray &containers)
{
    QStringList names;
    for (const QJsonValue &container : containers)
        names.append(escapeName(container.toObject().value(QStringLiteral("name")).toString()));
    return names.isEmpty() ? QStringLiteral("-") : names.join(QStringLiteral(", "));
}

int setCommand(DaemonSession &session, const QString &name, const QString &fromFile, bool json)
{
    // The name first: a bad one should not cost the user typing a value.
    if (auto checked = Secrets::checkSecretName(name.toStdString()); !checked)
        return reportError(checked.error());
    auto value = readValue(name, fromFile);
    if (!value)
        return reportError(value.error());
    // Checked here too: the protocol carries text, and bytes that are not UTF-8 would arrive replaced.
    if (auto checked = Secrets::checkSecretValue(name.toStdString(), *value); !checked)
        return reportError(checked.error());
    auto set = session.call(
        QStringLiteral("secret.set"),
        {{QStringLiteral("name"), name}, {QStringLiteral("value"), QString::fromStdString(*value)}});
    std::fill(value->begin(), value->end(), '\0');
    if (!set)
        return reportError(set.error());
    const QJsonObject secret = set->value(QStringLiteral("secret")).toObject();
    if (json) {
        printJson(secret);
        return 0;
    }
    printOut(QStringLiteral("secret %1 set (%2)\n")
                 .arg(name, secret.value(QStringLiteral("fingerprint")).toString()));
    return 0;
}

// Where the daemon's store keeps values, as `secret ls` says it below the table.
QString valuesInText(const QString &valuesIn)
{
    if (valuesIn == QLatin1String("secret-service"))
        return QStringLiteral("values are kept in the desktop keyring (Secret Service)\n");
    return QStringLiteral("values are kept in the data folder's secrets.json (mode 0600)\n");
}

int listCommand(DaemonSession &session, bool json)
{
    auto listed = session.call(QStringLiteral("secret.list"));
    if (!listed)
        return reportError(listed.error());
    const QJsonArray secrets = listed->value(QStringLiteral("secrets")).toArray();
    if (json) {
        printJson(secrets);
        return 0;
    }
    const QString valuesIn = valuesInText(listed->value(QStringLiteral("values_in")).toString());
    // Keys of `cordon cp --pseudonymize`: in the same store, never given to a run.
    QString keys;
    for (const QJsonValue &value : listed->value(QStringLiteral("pseudonym_keys")).toArray()) {
        const QJsonObject key = value.toObject();
        keys +=
            QStringLiteral("pseudonym key %1 (%2), made %3\n")
                .arg(key.value(QStringLiteral("name")).toString(), key.value(QStringLiteral("id")).toString(),
                     formatTime(key.value(QStringLiteral("created_at")).toInteger()));
    }
    if (secrets.isEmpty()) {
        printOut(QStringLiteral("no secrets: set one with `cordon secret set NAME`; ") + valuesIn + keys);
        return 0;
    }
    Table table({QStringLiteral("NAME"), QStringLiteral("SET"), QStringLiteral("FINGERPRINT"),
                 QStringLiteral("USED BY")});
    for (const QJsonValue &value : secrets) {
        const QJsonObject secret = value.toObject();
        table.addRow({secret.value(QStringLiteral("name")).toString(),
                      formatTime(secret.value(QStringLiteral("set_at")).toInteger()),
                      secret.value(QStringLiteral("fingerprint")).toString(),
                      usedByText(secret.value(QStringLiteral("used_by")).toArray())});
    }
    printOut(table.toString() + valuesIn + keys);
    return 0;
}

} // namespace

int secretCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon secret");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The secrets the host holds for its containers; values go in and never come out.\n"
        "  set NAME [--from-file PATH]  set a secret; the value from standard input, not echoed on a\n"
        "                               terminal (one trailing line break is dropped)\n"
        "  ls                           names, when each was set, its fingerprint, the containers using it\n"
        "  rm NAME                      remove a secret (runs that need it fail until it is set again)\n"
        "  rm --pseudonym-key NAME      forget a pseudonym key: its pseudonyms can never be made again"));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the daemon's result as JSON."));
    const QCommandLineOption fromFileOption(QStringLiteral("from-file"),
                                            QStringLiteral("Read the value from this file."),
                                            QStringLiteral("path"));
    const QCommandLineOption keyOption(QStringLiteral("pseudonym-key"),
                                       QStringLiteral("`rm` forgets the pseudonym key NAME, not a secret."));
    parser.addOptions({jsonOption, fromFileOption, keyOption});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("set, ls or rm."),
                                 QStringLiteral("set|ls|rm [NAME]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if ((action == QLatin1String("set") || action == QLatin1String("rm")) && positional.size() != 2)
        return usageError(command, QStringLiteral("`%1` takes one secret name").arg(action));
    if (action == QLatin1String("ls") && positional.size() != 1)
        return usageError(command, QStringLiteral("`ls` takes no further arguments"));
    if (action != QLatin1String("set") && action != QLatin1String("ls") && action != QLatin1String("rm"))
        return usageError(command, QStringLiteral("say set, ls or rm"));
    if (parser.isSet(fromFileOption) && action != QLatin1String("set"))
        return usageError(command, QStringLiteral("--from-file goes with `set`"));
    if (parser.isSet(keyOption) && action != QLatin1String("rm"))
        return usageError(command, QStringLiteral("--pseudonym-key goes with `rm`"));

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    const bool json = parser.isSet(jsonOption);
    if (action == QLatin1String("set"))
        return setCommand(session, positional.at(1), parser.value(fromFileOption), json);
    if (action == QLatin1String("ls"))
        return listCommand(session, json);
    const bool key = parser.isSet(keyOption);
    if (auto removed =
            session.call(QStringLiteral("secret.remove"), {{QStringLiteral("name"), positional.at(1)},
                                                           {QStringLiteral("pseudonym_key"), key}});
        !removed)
        return reportError(removed.error());
    if (!json)
        printOut((key ? QStringLiteral("pseudonym key %1 removed\n") : QStringLiteral("secret %1 removed\n"))
                     .arg(positional.at(1)));
    else
        printJson(QJsonObject{});
    return 0;
}

} // namespace Cordon::Cli
