// SPDX-License-Identifier: MIT
// An experiment for bench/proxy-benchmarks.sh, not a product: an LD_PRELOAD library that sets TCP_NODELAY on
// every TCP socket the process connects or accepts, to measure what a proxy loses to Nagle's algorithm
// without changing its code (docs/benchmarks.md, "Proxy throughput and set-up latency").
//
//   cc -O2 -shared -fPIC -o /tmp/nodelay-preload.so bench/nodelay-preload.c -ldl
//   bench/proxy-benchmarks.sh build/bin --cordond-env LD_PRELOAD=/tmp/nodelay-preload.so
//
// Build with -DNODELAY_ACCEPT_ONLY or -DNODELAY_CONNECT_ONLY to change only the accepted (client-side) or only
// the connected (upstream) sockets. setsockopt on a socket that is not TCP fails harmlessly.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int connect(int fd, const struct sockaddr *address, socklen_t length)
{
    static int (*real)(int, const struct sockaddr *, socklen_t);
    if (!real)
        real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
#ifndef NODELAY_ACCEPT_ONLY
    if (address && (address->sa_family == AF_INET || address->sa_family == AF_INET6))
        nodelay(fd);
#endif
    return real(fd, address, length);
}

int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags)
{
    static int (*real)(int, struct sockaddr *, socklen_t *, int);
    if (!real)
        real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
    const int accepted = real(fd, address, length, flags);
#ifndef NODELAY_CONNECT_ONLY
    if (accepted >= 0)
        nodelay(accepted);
#endif
    return accepted;
}

int accept(int fd, struct sockaddr *address, socklen_t *length)
{
    static int (*real)(int, struct sockaddr *, socklen_t *);
    if (!real)
        real = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "accept");
    const int accepted = real(fd, address, length);
#ifndef NODELAY_CONNECT_ONLY
    if (accepted >= 0)
        nodelay(accepted);
#endif
    return accepted;
}
