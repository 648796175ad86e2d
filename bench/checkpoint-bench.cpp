// SPDX-License-Identifier: MIT
// What a workspace checkpoint costs (Files::saveTree() with a manifest, docs/benchmarks.md "Workspace
// checkpoints"): a tree in a tmpfs is saved in full to a host directory, one file is changed, and the tree is
// saved again incrementally; CPU (getrusage, user + sys) and wall time of both, with and without durable
// (fsync) saves.
//
//   checkpoint-bench [large|small|all] [source tmpfs directory] [host directory]
//
// large: 1024 files of 1 MiB in 32 directories; small: 50,000 files of 20 KiB in 500 directories. The source
// defaults to /dev/shm/cordon-checkpoint-bench, the host copy to /var/tmp/cordon-checkpoint-bench; both are
// removed at the end.
#include "sandbox/files/removetree.h"
#include "sandbox/files/treemirror.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

using namespace Cordon;

namespace {

struct Variant
{
    const char *name;
    int directories;
    int filesPerDirectory;
    std::size_t fileSize;
};

double cpuSeconds()
{
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double wallSeconds()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

bool writeFile(const std::string &path, const std::vector<char> &content)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, content.data(), content.size()) == ssize_t(content.size());
    ::close(fd);
    return ok;
}

bool makeTree(const std::string &root, const Variant &variant)
{
    if (::mkdir(root.c_str(), 0755) != 0)
        return false;
    std::vector<char> content(variant.fileSize);
    for (int d = 0; d < variant.directories; ++d) {
        const std::string dir = root + "/dir" + std::to_string(d);
        if (::mkdir(dir.c_str(), 0755) != 0)
            return false;
        for (int f = 0; f < variant.filesPerDirectory; ++f) {
            // Distinct, non-zero contents (zeros would be saved as holes, which costs nothing).
            std::memset(content.data(), 'a' + (d + f) % 26, content.size());
            std::snprintf(content.data(), content.size(), "%d/%d", d, f);
            if (!writeFile(dir + "/file" + std::to_string(f), content))
                return false;
        }
    }
    return true;
}

struct Measured
{
    double cpu = 0;
    double wall = 0;
    Files::MirrorReport report;
};

bool save(int source, const std::string &host, bool durable, Files::MirrorManifest *manifest, Measured *out)
{
    Files::MirrorLimits limits;
    limits.maxBytes = std::int64_t(4) << 30;
    limits.maxEntries = 1 << 20;
    limits.durable = durable;
    const double cpu = cpuSeconds();
    const double wall = wallSeconds();
    auto report = Files::saveTree(source, host, limits, manifest);
    out->cpu = cpuSeconds() - cpu;
    out->wall = wallSeconds() - wall;
    if (!report) {
        std::fprintf(stderr, "save failed: %s\n", report.error().message().c_str());
        return false;
    }
    out->report = *report;
    return true;
}

void print(const Variant &variant, bool durable, const char *what, const Measured &m)
{
    std::printf("%-6s %-8s %-12s cpu %8.1f ms  wall %8.1f ms  files %6lld linked %6lld copied %9.1f MiB\n",
                variant.name, durable ? "durable" : "plain", what, m.cpu * 1e3, m.wall * 1e3,
                static_cast<long long>(m.report.files), static_cast<long long>(m.report.linkedFiles),
                double(m.report.copiedBytes) / (1 << 20));
}

bool run(const Variant &variant, const std::string &sourceRoot, const std::string &hostParent)
{
    const std::string source = sourceRoot + "/tree";
    (void)Files::removeTree(source);
    if (!makeTree(source, variant)) {
        std::fprintf(stderr, "cannot make %s: %s\n", source.c_str(), std::strerror(errno));
        return false;
    }
    const int sourceFd = ::open(source.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    // A save records only files older than its start (a change in the same clock tick could go unseen).
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bool ok = sourceFd >= 0;
    for (const bool durable : {false, true}) {
        if (!ok)
            break;
        const std::string host = hostParent + "/work";
        (void)Files::removeTree(host);
        Files::MirrorManifest manifest;
        Measured full;
        Measured incremental;
        ok = save(sourceFd, host, durable, &manifest, &full);
        if (!ok)
            break;
        print(variant, durable, "full", full);
        // One 1 MiB file rewritten (in the small variant: one file grown to 1 MiB).
        std::vector<char> changed(1 << 20, durable ? 'D' : 'P');
        ok = writeFile(source + "/dir7/file3", changed);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ok = ok && save(sourceFd, host, durable, &manifest, &incremental);
        if (ok)
            print(variant, durable, "incremental", incremental);
        (void)Files::removeTree(host);
    }
    if (sourceFd >= 0)
        ::close(sourceFd);
    (void)Files::removeTree(source);
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    const std::string which = argc > 1 ? argv[1] : "all";
    const std::string sourceRoot = argc > 2 ? argv[2] : "/dev/shm/cordon-checkpoint-bench";
    const std::string hostParent = argc > 3 ? argv[3] : "/var/tmp/cordon-checkpoint-bench";
    ::mkdir(sourceRoot.c_str(), 0700);
    ::mkdir(hostParent.c_str(), 0700);
    const Variant variants[] = {{"large", 32, 32, 1 << 20}, {"small", 500, 100, 20 << 10}};
    bool ok = true;
    for (const Variant &variant : variants) {
        if (which == "all" || which == variant.name)
            ok = run(variant, sourceRoot, hostParent) && ok;
    }
    (void)Files::removeTree(hostParent);
    ::rmdir(sourceRoot.c_str());
    return ok ? 0 : 1;
}
