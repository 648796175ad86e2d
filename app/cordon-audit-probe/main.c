// SPDX-License-Identifier: MIT
// cordon-audit-probe PROBE [ARGS]: what the Go/No-Go audit runs inside a sandbox
// (engine/audit/auditrunner.h). Each probe attempts one thing a policy forbids or allows and prints what the
// kernel answered, one `key: value` line per fact on stdout; the audit judges, the probe only observes. It
// exits 0 when it could make its attempt (whatever the answer), 2 for bad arguments. A static PIE: it runs in
// any container root without a loader, uploaded into the inputs and copied to /tmp by the audit.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *errnoName(int err)
{
    if (err == 0)
        return "ok";
    const char *name = strerrorname_np(err);
    return name != NULL ? name : "unknown";
}

static int usage(void)
{
    fputs("usage: cordon-audit-probe write PATH | exists PATH | connect IPV4 PORT | proxy HOST PORT |\n"
          "       interfaces | rights | processes | alloc MIB | fork N | spew BYTES | fill PATH | sleep "
          "SECONDS |\n"
          "       leak NAME OUTPUT_PATH | leak-encoded NAME OUTPUT_PATH | symlink TARGET PATH | fifo PATH\n",
          stderr);
    return 2;
}

static long number(const char *text)
{
    char *end = NULL;
    errno = 0;
    const long value = strtol(text, &end, 10);
    return errno != 0 || end == text || *end != '\0' || value < 0 ? -1 : value;
}

// Creates (or truncates) PATH and writes one line to it.
static int probeWrite(const char *path)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        printf("write: %s\n", errnoName(errno));
        return 0;
    }
    const char line[] = "cordon audit probe\n";
    const ssize_t written = write(fd, line, sizeof line - 1);
    const int err = written == (ssize_t)(sizeof line - 1) ? 0 : errno;
    close(fd);
    printf("write: %s\n", errnoName(err));
    return 0;
}

static int probeExists(const char *path)
{
    struct stat st;
    printf("exists: %s\n", lstat(path, &st) == 0 ? "yes" : errnoName(errno));
    return 0;
}

// Waits for a non-blocking connect() to finish, for at most timeoutMs; the errno it ended with.
static int finishConnect(int fd, int timeoutMs)
{
    struct pollfd waiting = {.fd = fd, .events = POLLOUT};
    const int ready = poll(&waiting, 1, timeoutMs);
    if (ready == 0)
        return ETIMEDOUT;
    if (ready < 0)
        return errno;
    int err = 0;
    socklen_t length = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &length) != 0)
        return errno;
    return err;
}

static int connectTo(const char *ip, long port, int *err)
{
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, ip, &address.sin_addr) != 1) {
        *err = EINVAL;
        return -1;
    }
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    *err = connect(fd, (struct sockaddr *)&address, sizeof address) == 0 ? 0 : errno;
    if (*err == EINPROGRESS)
        *err = finishConnect(fd, 5000);
    if (*err != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// A direct TCP connection, past any proxy: what a program that ignores the proxy variables gets.
static int probeConnect(const char *ip, const char *portText)
{
    const long port = number(portText);
    if (port < 1 || port > 65535)
        return usage();
    int err = 0;
    const int fd = connectTo(ip, port, &err);
    if (fd >= 0)
        close(fd);
    printf("connect: %s\n", errnoName(err));
    return 0;
}

// The proxy from https_proxy (http://127.0.0.1:PORT, as the sandbox sets it): asks it for a tunnel to
// HOST:PORT and prints its status line and its reason (the body's first line).
static int probeProxy(const char *host, const char *portText)
{
    const long port = number(portText);
    if (port < 1 || port > 65535 || strlen(host) > 253)
        return usage();
    const char *proxy = getenv("https_proxy");
    if (proxy == NULL)
        proxy = getenv("HTTPS_PROXY");
    if (proxy == NULL) {
        printf("proxy: none\n");
        return 0;
    }
    char ip[64] = {0};
    long proxyPort = 0;
    if (sscanf(proxy, "http://%63[0-9.]:%ld", ip, &proxyPort) != 2) {
        printf("proxy: unreadable %s\n", proxy);
        return 0;
    }
    int err = 0;
    const int fd = connectTo(ip, proxyPort, &err);
    if (fd < 0) {
        printf("proxy: %s\n", errnoName(err));
        return 0;
    }
    char request[600];
    const int length = snprintf(request, sizeof request, "CONNECT %s:%ld HTTP/1.1\r\nHost: %s:%ld\r\n\r\n",
                                host, port, host, port);
    if (write(fd, request, (size_t)length) != length) {
        printf("proxy: %s\n", errnoName(errno));
        close(fd);
        return 0;
    }
    // The answer: a status line, headers, and for a refusal a short body. 30 s covers a slow upstream.
    char answer[4096];
    size_t used = 0;
    struct pollfd waiting = {.fd = fd, .events = POLLIN};
    while (used < sizeof answer - 1 && poll(&waiting, 1, 30000) > 0) {
        const ssize_t got = read(fd, answer + used, sizeof answer - 1 - used);
        if (got <= 0)
            break;
        used += (size_t)got;
        answer[used] = '\0';
        if (strncmp(answer, "HTTP/1.1 200", 12) == 0 && strstr(answer, "\r\n\r\n") != NULL)
            break; // a tunnel: nothing follows until we speak
    }
    close(fd);
    answer[used] = '\0';
    const char *lineEnd = strstr(answer, "\r\n");
    printf("status: %.*s\n", lineEnd != NULL ? (int)(lineEnd - answer) : (int)used, answer);
    const char *body = strstr(answer, "\r\n\r\n");
    if (body != NULL && body[4] != '\0') {
        body += 4;
        const char *bodyEnd = strchr(body, '\n');
        printf("reason: %.*s\n", bodyEnd != NULL ? (int)(bodyEnd - body) : (int)strlen(body), body);
    }
    return 0;
}

// The lines of /proc/self/status that show a process's rights, and who it runs as.
// The network interfaces this probe can see, by name, and their count.
static int probeInterfaces(void)
{
    struct if_nameindex *interfaces = if_nameindex();
    if (interfaces == NULL) {
        printf("interfaces: %s\n", errnoName(errno));
        return 0;
    }
    int count = 0;
    for (const struct if_nameindex *i = interfaces; i->if_index != 0; ++i) {
        printf("interface %u: %s\n", i->if_index, i->if_name);
        ++count;
    }
    if_freenameindex(interfaces);
    printf("interfaces: %d\n", count);
    return 0;
}

static int probeRights(void)
{
    FILE *status = fopen("/proc/self/status", "re");
    if (status == NULL) {
        printf("status: %s\n", errnoName(errno));
        return 0;
    }
    static const char *const wanted[] = {"Uid:",    "CapInh:",     "CapPrm:",  "CapEff:",         "CapBnd:",
                                         "CapAmb:", "NoNewPrivs:", "Seccomp:", "Seccomp_filters:"};
    char line[512];
    while (fgets(line, sizeof line, status) != NULL) {
        for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; ++i) {
            if (strncmp(line, wanted[i], strlen(wanted[i])) == 0) {
                for (char *c = line; *c; ++c)
                    if (*c == '\t')
                        *c = ' ';
                fputs(line, stdout);
            }
        }
    }
    fclose(status);
    // Not only the mode: a call the profile denies, which succeeds without it (unshare of nothing is a no-op
    // that any process may make), shows that the filter in force is the one that refuses.
    printf("unshare: %s\n", unshare(0) == 0 ? "ok" : errnoName(errno));
    // ptrace of a process of the same container (a child, which Yama's default scope allows): the profile
    // refuses it unless the policy sets allow_ptrace.
    const pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    if (child < 0) {
        printf("ptrace: fork %s\n", errnoName(errno));
        return 0;
    }
    const long attached = ptrace(PTRACE_SEIZE, child, NULL, NULL);
    printf("ptrace: %s\n", attached == 0 ? "ok" : errnoName(errno));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return 0;
}

// Every process this probe can see, as `pid: command`, and their count.
static int probeProcesses(void)
{
    DIR *proc = opendir("/proc");
    if (proc == NULL) {
        printf("proc: %s\n", errnoName(errno));
        return 0;
    }
    int count = 0;
    const struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        if (number(entry->d_name) <= 0)
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%s/comm", entry->d_name);
        char command[64] = "?";
        FILE *comm = fopen(path, "re");
        if (comm != NULL) {
            if (fgets(command, sizeof command, comm) != NULL)
                command[strcspn(command, "\n")] = '\0';
            fclose(comm);
        }
        printf("process %s: %s\n", entry->d_name, command);
        ++count;
    }
    closedir(proc);
    printf("processes: %d\n", count);
    return 0;
}

// Allocates and touches MIB mebibytes, reporting progress every 64 MiB; the memory limit should end it first.
static int probeAlloc(const char *mibText)
{
    const long mib = number(mibText);
    if (mib < 1)
        return usage();
    for (long done = 1; done <= mib; ++done) {
        char *block = malloc(1 << 20);
        if (block == NULL) {
            printf("allocated: %ld MiB, then %s\n", done - 1, errnoName(ENOMEM));
            return 0;
        }
        memset(block, 0x5a, 1 << 20);
        if (done % 64 == 0) {
            printf("allocated: %ld MiB\n", done);
            fflush(stdout);
        }
    }
    printf("allocated: %ld MiB, all of it\n", mib);
    return 0;
}

// Forks children that wait, until N exist or fork fails; then ends them.
static int probeFork(const char *countText)
{
    const long wanted = number(countText);
    if (wanted < 1 || wanted > 100000)
        return usage();
    pid_t *children = calloc((size_t)wanted, sizeof *children);
    if (children == NULL)
        return usage();
    long made = 0;
    int err = 0;
    for (; made < wanted; ++made) {
        const pid_t child = fork();
        if (child < 0) {
            err = errno;
            break;
        }
        if (child == 0) {
            pause();
            _exit(0);
        }
        children[made] = child;
    }
    for (long i = 0; i < made; ++i)
        kill(children[i], SIGKILL);
    for (long i = 0; i < made; ++i)
        waitpid(children[i], NULL, 0);
    printf("forked: %ld\nfork: %s\n", made, errnoName(err));
    free(children);
    return 0;
}

static int probeSpew(const char *bytesText)
{
    long left = number(bytesText);
    if (left < 0)
        return usage();
    char chunk[65536];
    memset(chunk, 'x', sizeof chunk);
    while (left > 0) {
        const size_t size = left < (long)sizeof chunk ? (size_t)left : sizeof chunk;
        const ssize_t written = write(STDOUT_FILENO, chunk, size);
        if (written <= 0)
            return 0;
        left -= written;
    }
    return 0;
}

// Writes PATH.0, PATH.1 ... (16 MiB each) until the file system refuses; prints how much it took and the
// errno. Files of their own, and a file that reaches RLIMIT_FSIZE (EFBIG) is followed by the next, so that a
// limit on one file's size cannot stand in for the workspace quota.
static int probeFill(const char *path)
{
    // RLIMIT_FSIZE sends SIGXFSZ before EFBIG: ignore it to see the errno.
    signal(SIGXFSZ, SIG_IGN);
    static char chunk[1 << 16];
    memset(chunk, 'f', sizeof chunk);
    enum
    {
        ChunksPerFile = 256
    };
    long long total = 0;
    int err = 0;
    int files = 0;
    char name[4096];
    while (err == 0 && files < 65536) {
        snprintf(name, sizeof name, "%s.%d", path, files);
        const int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            err = errno;
            break;
        }
        ++files;
        for (int i = 0; i < ChunksPerFile; ++i) {
            const ssize_t written = write(fd, chunk, sizeof chunk);
            if (written < 0) {
                if (errno != EFBIG)
                    err = errno;
                break;
            }
            total += written;
        }
        close(fd);
    }
    for (int i = 0; i < files; ++i) {
        snprintf(name, sizeof name, "%s.%d", path, i);
        unlink(name);
    }
    printf("filled: %lld bytes in %d files\nfill: %s\n", total, files, errnoName(err));
    return 0;
}

static int probeSleep(const char *secondsText)
{
    const long seconds = number(secondsText);
    if (seconds < 0)
        return usage();
    printf("sleeping: %ld\n", seconds);
    fflush(stdout);
    struct timespec wait = {.tv_sec = seconds};
    while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
    printf("slept: %ld\n", seconds);
    return 0;
}

// Tries every way out for the value of the variable NAME: stdout, stderr (in a few forms) and a file.
static int probeLeak(const char *name, const char *outputPath)
{
    const char *value = getenv(name);
    if (value == NULL) {
        printf("leak: %s is not set\n", name);
        return 0;
    }
    printf("value: %s\n", value);
    fprintf(stderr, "error: the service refused the key %s\n", value);
    const int fd = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
        dprintf(fd, "{\"api_key\": \"%s\"}\n", value);
        close(fd);
    }
    printf("leak: written\n");
    // An invalid key makes a well-behaved client fail: so does this probe.
    return 1;
}

static void printHex(const char *label, const unsigned char *value, size_t size, const char *digits)
{
    printf("form %s: ", label);
    for (size_t i = 0; i < size; ++i)
        printf("%c%c", digits[value[i] >> 4], digits[value[i] & 15]);
    putchar('\n');
}

// Base64 of `prefixSize` bytes 'x' and the value: the value at each of the three alignments it can have
// inside a longer encoded text.
static void printBase64(const char *label, const unsigned char *value, size_t size, size_t prefixSize,
                        const char *alphabet)
{
    unsigned char bytes[4200];
    if (size + prefixSize > sizeof bytes)
        return;
    memset(bytes, 'x', prefixSize);
    memcpy(bytes + prefixSize, value, size);
    const size_t total = size + prefixSize;
    printf("form %s: ", label);
    for (size_t i = 0; i < total; i += 3) {
        const unsigned a = bytes[i], b = i + 1 < total ? bytes[i + 1] : 0,
                       c = i + 2 < total ? bytes[i + 2] : 0;
        putchar(alphabet[a >> 2]);
        putchar(alphabet[((a & 3) << 4) | (b >> 4)]);
        putchar(i + 1 < total ? alphabet[((b & 15) << 2) | (c >> 6)] : '=');
        putchar(i + 2 < total ? alphabet[c & 63] : '=');
    }
    putchar('\n');
}

// `plus`: a space as "+", as form bodies and query strings write it (quote_plus).
static void printPercent(const char *label, const unsigned char *value, size_t size, const char *digits,
                         int plus)
{
    printf("form %s: ", label);
    for (size_t i = 0; i < size; ++i) {
        const unsigned char c = value[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("-._~", c))
            putchar(c);
        else if (c == ' ' && plus)
            putchar('+');
        else
            printf("%%%c%c", digits[c >> 4], digits[c & 15]);
    }
    putchar('\n');
}

// JSON string escaping as common encoders write it: `"`, `\` and control bytes escaped; with `unicode`,
// every non-ASCII character as \uXXXX (Python's json.dumps); with `slash`, `/` as `\/` (PHP).
static void printJson(const char *label, const unsigned char *value, size_t size, int unicode, int slash)
{
    printf("form %s: ", label);
    for (size_t i = 0; i < size; ++i) {
        const unsigned char c = value[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '/' && slash)
            fputs("\\/", stdout);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else if (c >= 0xc0 && c < 0xe0 && unicode && i + 1 < size) {
            printf("\\u%04x", ((c & 0x1f) << 6) | (value[i + 1] & 0x3f));
            ++i;
        } else
            putchar(c);
    }
    putchar('\n');
}

// The leak probe, then the value in every form the masker documents (docs/secrets.md), one `form` line each:
// every one must be kept masked.
static int probeLeakEncoded(const char *name, const char *outputPath)
{
    const int status = probeLeak(name, outputPath);
    const char *value = getenv(name);
    if (value == NULL)
        return status;
    const unsigned char *bytes = (const unsigned char *)value;
    const size_t size = strlen(value);
    unsigned char lower[4096];
    if (size < sizeof lower) {
        for (size_t i = 0; i < size; ++i)
            lower[i] = bytes[i] >= 'A' && bytes[i] <= 'Z' ? bytes[i] + 32 : bytes[i];
        lower[size] = 0;
        printf("form lower: %s\n", (const char *)lower);
    }
    printJson("json", bytes, size, 0, 0);
    printJson("json-unicode", bytes, size, 1, 0);
    printJson("json-slash", bytes, size, 0, 1);
    printPercent("percent", bytes, size, "0123456789ABCDEF", 0);
    printPercent("percent-lower", bytes, size, "0123456789abcdef", 0);
    printPercent("percent-plus", bytes, size, "0123456789ABCDEF", 1);
    printPercent("percent-plus-lower", bytes, size, "0123456789abcdef", 1);
    printHex("hex", bytes, size, "0123456789abcdef");
    printHex("hex-upper", bytes, size, "0123456789ABCDEF");
    static const char standard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char urlSafe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const char *labels[2][3] = {{"base64-0", "base64-1", "base64-2"},
                                {"base64url-0", "base64url-1", "base64url-2"}};
    for (size_t prefix = 0; prefix < 3; ++prefix) {
        printBase64(labels[0][prefix], bytes, size, prefix, standard);
        printBase64(labels[1][prefix], bytes, size, prefix, urlSafe);
    }
    return status;
}

static int probeSymlink(const char *target, const char *path)
{
    printf("symlink: %s\n", errnoName(symlink(target, path) == 0 ? 0 : errno));
    return 0;
}

static int probeFifo(const char *path)
{
    printf("fifo: %s\n", errnoName(mkfifo(path, 0644) == 0 ? 0 : errno));
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2)
        return usage();
    const char *probe = argv[1];
    if (argc == 3 && strcmp(probe, "write") == 0)
        return probeWrite(argv[2]);
    if (argc == 3 && strcmp(probe, "exists") == 0)
        return probeExists(argv[2]);
    if (argc == 4 && strcmp(probe, "leak-encoded") == 0)
        return probeLeakEncoded(argv[2], argv[3]);
    if (argc == 4 && strcmp(probe, "connect") == 0)
        return probeConnect(argv[2], argv[3]);
    if (argc == 4 && strcmp(probe, "proxy") == 0)
        return probeProxy(argv[2], argv[3]);
    if (argc == 2 && strcmp(probe, "interfaces") == 0)
        return probeInterfaces();
    if (argc == 2 && strcmp(probe, "rights") == 0)
        return probeRights();
    if (argc == 2 && strcmp(probe, "processes") == 0)
        return probeProcesses();
    if (argc == 3 && strcmp(probe, "alloc") == 0)
        return probeAlloc(argv[2]);
    if (argc == 3 && strcmp(probe, "fork") == 0)
        return probeFork(argv[2]);
    if (argc == 3 && strcmp(probe, "spew") == 0)
        return probeSpew(argv[2]);
    if (argc == 3 && strcmp(probe, "fill") == 0)
        return probeFill(argv[2]);
    if (argc == 3 && strcmp(probe, "sleep") == 0)
        return probeSleep(argv[2]);
    if (argc == 4 && strcmp(probe, "leak") == 0)
        return probeLeak(argv[2], argv[3]);
    if (argc == 4 && strcmp(probe, "symlink") == 0)
        return probeSymlink(argv[2], argv[3]);
    if (argc == 3 && strcmp(probe, "fifo") == 0)
        return probeFifo(argv[2]);
    return usage();
}
