// SPDX-License-Identifier: MIT
// exec-min: the smallest client that can run a command in a cordond container, as a lower bound for what a
// native CLI without Qt could cost. Not a product: no JSON parser, no output, no error messages beyond one
// line. bench/daemon-benchmarks.sh compiles it (cc -O2) when a C compiler is there and times it next to
// `cordon exec`.
//
//   exec-min CONTAINER_ID CMD [ARGS...]      (socket: $CORDON_SOCKET)
//
// One connection: hello, run.exec, run.wait, each answered before the next is sent; nothing is subscribed,
// so every frame that arrives is the answer to the last request. Exit status 0 when the run's error_class
// is "ok", 1 otherwise, 2 on a usage or connection error. Arguments must not need JSON escaping.
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static char frame[1 << 20];

static int writeAll(int fd, const char *data, size_t size)
{
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

static int readAll(int fd, char *data, size_t size)
{
    while (size > 0) {
        const ssize_t n = read(fd, data, size);
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

// Sends one request and reads one frame into `frame` (NUL-terminated). Returns 0, or -1.
static int call(int fd, const char *json)
{
    const uint32_t length = htonl((uint32_t)strlen(json));
    if (writeAll(fd, (const char *)&length, 4) || writeAll(fd, json, strlen(json)))
        return -1;
    uint32_t answer;
    if (readAll(fd, (char *)&answer, 4))
        return -1;
    answer = ntohl(answer);
    if (answer >= sizeof frame || readAll(fd, frame, answer))
        return -1;
    frame[answer] = '\0';
    return strncmp(frame, "{\"error\"", 8) == 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *path = getenv("CORDON_SOCKET");
    if (argc < 3 || !path || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "usage: CORDON_SOCKET=PATH exec-min CONTAINER_ID CMD [ARGS...]\n");
        return 2;
    }
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("exec-min: connect");
        return 2;
    }
    char request[8192];
    if (call(fd, "{\"id\":1,\"method\":\"hello\",\"params\":{\"protocol\":1,\"client\":\"exec-min\"}}")) {
        fprintf(stderr, "exec-min: hello failed: %s\n", frame);
        return 2;
    }
    int used = snprintf(request, sizeof request,
                        "{\"id\":2,\"method\":\"run.exec\",\"params\":{\"container\":\"%s\",\"command\":[", argv[1]);
    for (int i = 2; i < argc && used < (int)sizeof request; ++i)
        used += snprintf(request + used, sizeof request - (size_t)used, "%s\"%s\"", i > 2 ? "," : "", argv[i]);
    used += snprintf(request + used, sizeof request - (size_t)used, "]}}");
    if (used >= (int)sizeof request || call(fd, request)) {
        fprintf(stderr, "exec-min: run.exec failed: %s\n", frame);
        return 2;
    }
    // The run's id: the first string-valued "id" after "run" (the response's own id is a number).
    const char *run = strstr(frame, "\"run\":");
    const char *id = run ? strstr(run, "\"id\":\"") : NULL;
    const char *end = id ? strchr(id + 6, '"') : NULL;
    if (!end || end - (id + 6) > 64) {
        fprintf(stderr, "exec-min: no run id in %s\n", frame);
        return 2;
    }
    snprintf(request, sizeof request, "{\"id\":3,\"method\":\"run.wait\",\"params\":{\"run_id\":\"%.*s\"}}",
             (int)(end - (id + 6)), id + 6);
    if (call(fd, request)) {
        fprintf(stderr, "exec-min: run.wait failed: %s\n", frame);
        return 2;
    }
    return strstr(frame, "\"error_class\":\"ok\"") ? 0 : 1;
}
