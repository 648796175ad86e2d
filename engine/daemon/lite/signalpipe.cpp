// SPDX-License-Identifier: MIT
#include "daemon/lite/signalpipe.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <initializer_list>
#include <unistd.h>

namespace Cordon::Lite {

namespace {

int s_pipe[2] = {-1, -1};

void onSignal(int signal)
{
    const int saved = errno;
    const char byte = static_cast<char>(signal);
    [[maybe_unused]] const ssize_t written = ::write(s_pipe[1], &byte, 1);
    errno = saved;
}

} // namespace

int interruptSignalPipe()
{
    if (s_pipe[0] >= 0)
        return s_pipe[0];
    if (::pipe2(s_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(signal, &action, nullptr);
    return s_pipe[0];
}

void drainSignalPipe(int fd)
{
    char bytes[16];
    while (::read(fd, bytes, sizeof bytes) > 0) {
    }
}

} // namespace Cordon::Lite
