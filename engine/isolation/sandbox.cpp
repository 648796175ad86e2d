// SPDX-License-Identifier: MIT
#include "isolation/sandbox.h"

#include "core/notifiers.h"
#include <QCoreApplication>
#include <QFileInfo>

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

constexpr int SetupTimeoutMs = 15000;

Result<> writeProcFile(pid_t pid, const char *name, const QByteArray &contents)
{
    const QByteArray path = "/proc/" + QByteArray::number(pid) + '/' + name;
    const int fd = ::open(path.constData(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return failErrno(QStringLiteral("userns.id_map"),
                         QStringLiteral("open `%1`").arg(QString::fromLatin1(path)), errno);
    const ssize_t written = ::write(fd, contents.constData(), static_cast<size_t>(contents.size()));
    const int error = errno;
    ::close(fd);
    if (written != contents.size())
        return failErrno(QStringLiteral("userns.id_map"),
                         QStringLiteral("write `%1`").arg(QString::fromLatin1(path)),
                         written < 0 ? error : EIO);
    return {};
}

// The child holds every capability of its new user namespace, but execve would drop them all: its uid is not
// root there (it is 1000, or not even mapped yet). Raising them into the inheritable and ambient sets keeps
// them across the exec of cordon-init, which needs them for mounts and gives them all up before any run
// starts. Async-signal-safe: plain system calls on stack memory.
bool keepCapabilitiesAcrossExec()
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    for (auto &word : data)
        word.inheritable = word.permitted;
    if (::syscall(SYS_capset, &header, data) != 0)
        return false;
    for (unsigned long cap = 0; cap <= 63; ++cap) {
        if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0 && errno != EINVAL)
            return false;
    }
    return true;
}

} // namespace

Error setupError(const SetupReply &reply)
{
    QString what =
        QStringLiteral("container setup failed at %1").arg(QString::fromLatin1(stageName(reply.stage)));
    if (!reply.detail.empty())
        what += QStringLiteral(" (%1)").arg(QString::fromStdString(reply.detail));
    return Error::fromErrno(QStringLiteral("sandbox.setup_failed"), what, reply.error);
}

Sandbox::Sandbox(QObject *parent) : QObject(parent) {}

Sandbox::~Sandbox()
{
    destroy();
}

QString Sandbox::locateInit()
{
    const QByteArray fromEnv = qgetenv("CORDON_INIT");
    if (!fromEnv.isEmpty())
        return QString::fromLocal8Bit(fromEnv);
    const QString dir = QCoreApplication::applicationDirPath();
    const QStringList candidates = {dir + QStringLiteral("/cordon-init"),
                                    dir + QStringLiteral("/../libexec/cordon/cordon-init")};
    for (const QString &candidate : candidates) {
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return dir + QStringLiteral("/cordon-init");
}

Result<> Sandbox::launch(const IdMapping &ids)
{
    if (m_initPid > 0)
        return fail(QStringLiteral("sandbox.already_running"),
                    QStringLiteral("the container is already running"));

    // Everything the child touches between clone and execve is prepared here: it may not allocate or lock.
    const QByteArray initPath = QFile::encodeName(locateInit());
    if (::access(initPath.constData(), X_OK) != 0)
        return failErrno(QStringLiteral("sandbox.init_missing"),
                         QStringLiteral("cordon-init at `%1`").arg(QString::fromLocal8Bit(initPath)), errno);

    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return failErrno(QStringLiteral("sandbox.socket"), QStringLiteral("socketpair"), errno);
    const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devNull < 0) {
        ::close(pair[0]);
        ::close(pair[1]);
        return failErrno(QStringLiteral("sandbox.devnull"), QStringLiteral("open /dev/null"), errno);
    }
    char argv0[] = "cordon-init";
    char *const argv[] = {argv0, nullptr};
    char *const envp[] = {nullptr};

    // A raw clone (no CLONE_VM) behaves like fork but creates the namespaces in the same step; the cgroup
    // namespace comes later, from cordon-init itself, after we moved it into its cgroup.
    const long flags =
        CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
    const long pid = ::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, 0);
    if (pid == 0) {
        // Child: async-signal-safe calls only.
        const int control = ::fcntl(pair[1], F_DUPFD, 10);
        if (control < 0 || ::dup2(devNull, 0) < 0 || ::dup2(devNull, 1) < 0 || ::dup2(devNull, 2) < 0 ||
            ::dup2(control, ControlFd) < 0)
            ::_exit(126);
        ::syscall(SYS_close_range, static_cast<unsigned>(ControlFd + 1), ~0U, 0U);
        if (!keepCapabilitiesAcrossExec())
            ::_exit(125);
        ::execve(initPath.constData(), argv, envp);
        ::_exit(127);
    }
    const int cloneError = errno;
    ::close(devNull);
    ::close(pair[1]);
    if (pid < 0) {
        ::close(pair[0]);
        const QString code = cloneError == EPERM || cloneError == ENOSPC
                                 ? QStringLiteral("userns.unavailable")
                                 : QStringLiteral("sandbox.clone");
        return failErrno(code, QStringLiteral("clone new namespaces"), cloneError);
    }
    m_initPid = static_cast<pid_t>(pid);
    m_control = pair[0];
    if (auto written = writeIdMaps(ids); !written) {
        destroy();
        return written;
    }
    return {};
}

Result<> Sandbox::sendSetup(const SandboxSpec &spec)
{
    if (m_initPid <= 0 || m_control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("launch() the sandbox first"));
    SetupRequest setup = spec.setup;
    setup.bindSources.clear();
    for (const QString &host : spec.bindSources)
        setup.bindSources.push_back(QFile::encodeName(host).toStdString());
    // A test knob: the mount route of kernels before 5.12, which this kernel would otherwise never take.
    setup.classicMountCalls = qEnvironmentVariableIntValue("CORDON_CLASSIC_MOUNTS") == 1;
    if (const int error = sendMessage(m_control, encode(setup)); error != 0) {
        destroy();
        return failErrno(QStringLiteral("sandbox.setup_failed"), QStringLiteral("send setup request"), error);
    }
    return {};
}

Result<> Sandbox::awaitSetUp()
{
    if (m_initPid <= 0 || m_control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("launch() the sandbox first"));
    auto abort = [this](Error error) -> Result<> {
        destroy();
        return fail(std::move(error));
    };
    auto reply = awaitSetupReply(SetupTimeoutMs);
    if (!reply)
        return abort(reply.error());
    if (reply->stage != Stage::None)
        return abort(setupError(*reply));

    ::fcntl(m_control, F_SETFL, ::fcntl(m_control, F_GETFL) | O_NONBLOCK);
    m_notifier = std::make_unique<QSocketNotifier>(m_control, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &Sandbox::readMessages);
    return {};
}

Result<> Sandbox::writeIdMaps(const IdMapping &ids)
{
    // setgroups must be denied before an unprivileged process may write gid_map (CVE-2014-8989: otherwise a
    // dropped supplementary group could be shed again inside).
    CORDON_TRY(writeProcFile(m_initPid, "setgroups", "deny"));
    CORDON_TRY(
        writeProcFile(m_initPid, "uid_map",
                      QByteArray::number(ids.insideUid) + ' ' + QByteArray::number(ids.hostUid) + " 1\n"));
    CORDON_TRY(
        writeProcFile(m_initPid, "gid_map",
                      QByteArray::number(ids.insideGid) + ' ' + QByteArray::number(ids.hostGid) + " 1\n"));
    return {};
}

Result<SetupReply> Sandbox::awaitSetupReply(int timeoutMs)
{
    pollfd entry{m_control, POLLIN, 0};
    int ready;
    do {
        ready = ::poll(&entry, 1, timeoutMs);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0)
        return fail(QStringLiteral("sandbox.setup_timeout"),
                    QStringLiteral("cordon-init did not answer the setup request in %1 ms").arg(timeoutMs));
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = receiveMessage(m_control, message, fds);
    // The only descriptor a setup reply carries is the proxy listener; anything more is closed.
    for (std::size_t i = 0; i < fds.size(); ++i) {
        if (i == 0 && m_proxyListener < 0)
            m_proxyListener = fds[i];
        else
            ::close(fds[i]);
    }
    SetupReply reply;
    if (received == 0) {
        int status = 0;
        const bool reaped = ::waitpid(m_initPid, &status, 0) == m_initPid;
        m_initPid = -1;
        return fail(QStringLiteral("sandbox.setup_failed"),
                    QStringLiteral("cordon-init exited before finishing setup (%1)")
                        .arg(reaped && WIFEXITED(status)
                                 ? QStringLiteral("exit code %1").arg(WEXITSTATUS(status))
                                 : QStringLiteral("killed")));
    }
    if (received < 0 || !decode(message.data(), message.size(), reply))
        return fail(QStringLiteral("sandbox.protocol"),
                    QStringLiteral("malformed setup reply from cordon-init"));
    return reply;
}

Result<> Sandbox::spawn(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd)
{
    if (m_control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("the container is not running"));
    const int fds[3] = {stdinFd, stdoutFd, stderrFd};
    if (const int error = sendMessage(m_control, encode(request), fds, 3); error != 0)
        return failErrno(QStringLiteral("sandbox.protocol"), QStringLiteral("send spawn request"), error);
    return {};
}

Result<> Sandbox::kill(quint64 runId, int signal)
{
    if (m_control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("the container is not running"));
    KillRequest request;
    request.runId = runId;
    request.signal = signal;
    if (const int error = sendMessage(m_control, encode(request)); error != 0)
        return failErrno(QStringLiteral("sandbox.protocol"), QStringLiteral("send kill request"), error);
    return {};
}

void Sandbox::readMessages()
{
    for (;;) {
        std::vector<std::uint8_t> message;
        std::vector<int> fds;
        const long received = receiveMessage(m_control, message, fds);
        for (int fd : fds)
            ::close(fd);
        if (received == -EAGAIN)
            return;
        if (received <= 0) {
            retireNotifier(m_notifier);
            Q_EMIT died();
            return;
        }
        switch (peekType(message.data(), message.size()).value_or(MessageType::SetupRequest)) {
        case MessageType::SpawnReply: {
            SpawnReply reply;
            if (!decode(message.data(), message.size(), reply))
                break;
            if (reply.stage == Stage::None) {
                Q_EMIT spawned(reply.runId, reply.pid);
            } else {
                QString what =
                    QStringLiteral("run setup failed at %1").arg(QString::fromLatin1(stageName(reply.stage)));
                Q_EMIT spawnFailed(reply.runId,
                                   Error::fromErrno(QStringLiteral("run.setup_failed"), what, reply.error));
            }
            break;
        }
        case MessageType::ExitReport: {
            ExitReport report;
            if (decode(message.data(), message.size(), report))
                Q_EMIT exited(report);
            break;
        }
        default:
            break;
        }
    }
}

void Sandbox::destroy()
{
    retireNotifier(m_notifier);
    if (m_initPid > 0) {
        ::kill(m_initPid, SIGKILL);
        int status = 0;
        while (::waitpid(m_initPid, &status, 0) < 0 && errno == EINTR) {
        }
        m_initPid = -1;
    }
    if (m_control >= 0) {
        ::close(m_control);
        m_control = -1;
    }
    if (m_proxyListener >= 0) {
        ::close(m_proxyListener);
        m_proxyListener = -1;
    }
}

void Sandbox::terminate()
{
    if (m_initPid > 0)
        ::kill(m_initPid, SIGKILL);
}

int Sandbox::takeProxyListener()
{
    return std::exchange(m_proxyListener, -1);
}

} // namespace Cordon::Isolation
