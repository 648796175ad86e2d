// SPDX-License-Identifier: MIT
// cordon-init: PID 1 of every container. The engine starts it in fresh namespaces with the control socket on
// fd 3.
#include "sandbox/init/heldruns.h"
#include "sandbox/init/initserver.h"
#include "sandbox/initprotocol.h"

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

int main()
{
    // If the engine dies before the setup is done, so does the container (a container that outlives the
    // engine clears this once it is set up; init/initserver.h).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    // The engine clones us with every signal blocked (no handler of its own may run in the child before the
    // exec); the mask we want is an empty one, and the server blocks SIGCHLD for its signalfd.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
#ifdef CORDON_INIT_ANSWERS_PROTOCOL
    Cordon::Isolation::answeredProtocolVersion = CORDON_INIT_ANSWERS_PROTOCOL; // tests/upgrade/ only
#endif
    if (::getpid() != 1)
        return 100; // only meaningful as the first process of a new pid namespace
    return Cordon::Isolation::runInit(Cordon::Isolation::ControlFd);
}
