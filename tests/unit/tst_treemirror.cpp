// SPDX-License-Identifier: MIT
// Saving a workspace tree to the host (engine/sandbox/files/treemirror.h), full and incremental: after every
// save the host copy is the source exactly (contents, modes, times, holes, symlinks, hard links), files
// unchanged since the previous save share their inode with its copy and nothing else does (not even a file
// whose size and modification time were forged back), and a save that fails part-way leaves the previous copy
// and its manifest as they were, good for the next save.
#include "sandbox/files/treemirror.h"
#include "sandbox/workspace.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Cordon;

namespace {

struct Entry
{
    char type = '?'; // d, f, l
    mode_t mode = 0;
    off_t size = 0;
    std::int64_t mtimeNs = 0;
    std::string content;                           // a file's bytes, a symlink's target
    std::vector<std::pair<off_t, off_t>> dataRuns; // where a file has data (SEEK_DATA/SEEK_HOLE)
    ino_t inode = 0;
    nlink_t links = 0;

    bool operator==(const Entry &other) const
    {
        return type == other.type && mode == other.mode && size == other.size && mtimeNs == other.mtimeNs &&
               content == other.content && dataRuns == other.dataRuns;
    }
};

using Tree = std::map<std::string, Entry>;

std::string readAll(int fd)
{
    std::string data;
    char buffer[65536];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
        data.append(buffer, std::size_t(got));
    return data;
}

void scan(const std::string &root, const std::string &rel, Tree *tree)
{
    const std::string path = rel.empty() ? root : root + '/' + rel;
    DIR *dir = ::opendir(path.c_str());
    QVERIFY2(dir, path.c_str());
    std::vector<std::string> names;
    while (const dirent *entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..")
            names.push_back(name);
    }
    ::closedir(dir);
    for (const std::string &name : names) {
        const std::string childRel = rel.empty() ? name : rel + '/' + name;
        const std::string child = root + '/' + childRel;
        struct stat st;
        QVERIFY(::lstat(child.c_str(), &st) == 0);
        Entry e;
        e.mode = st.st_mode & 07777;
        e.inode = st.st_ino;
        e.links = st.st_nlink;
        e.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        if (S_ISDIR(st.st_mode)) {
            e.type = 'd';
            scan(root, childRel, tree);
        } else if (S_ISLNK(st.st_mode)) {
            e.type = 'l';
            e.mode = 0;
            e.mtimeNs = 0; // symlinks keep no times
            char target[4096];
            const ssize_t length = ::readlink(child.c_str(), target, sizeof target);
            QVERIFY(length > 0);
            e.content.assign(target, std::size_t(length));
        } else {
            e.type = 'f';
            e.size = st.st_size;
            const int fd = ::open(child.c_str(), O_RDONLY | O_CLOEXEC);
            QVERIFY(fd >= 0);
            e.content = readAll(fd);
            for (off_t at = 0; at < st.st_size;) {
                const off_t data = ::lseek(fd, at, SEEK_DATA);
                if (data < 0)
                    break;
                const off_t hole = ::lseek(fd, data, SEEK_HOLE);
                e.dataRuns.emplace_back(data, hole);
                at = hole;
            }
            ::close(fd);
        }
        (*tree)[childRel] = e;
    }
}

Tree snapshot(const std::string &root)
{
    Tree tree;
    scan(root, std::string(), &tree);
    struct stat st;
    if (::stat(root.c_str(), &st) == 0) {
        Entry &top = tree["."];
        top.type = 'd';
        top.mode = st.st_mode & 07777;
        top.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    return tree;
}

// The names of each file with more than one, grouped by inode.
std::set<std::set<std::string>> linkGroups(const Tree &tree)
{
    std::map<ino_t, std::set<std::string>> byInode;
    for (const auto &[path, e] : tree) {
        if (e.type == 'f' && e.links > 1)
            byInode[e.inode].insert(path);
    }
    std::set<std::set<std::string>> groups;
    for (auto &[inode, names] : byInode)
        groups.insert(names);
    return groups;
}

// Equal trees, hard links included; the first difference is printed.
bool sameTree(const std::string &source, const std::string &copy)
{
    const Tree a = snapshot(source);
    const Tree b = snapshot(copy);
    for (const auto &[path, e] : a) {
        const auto found = b.find(path);
        if (found == b.end() || !(found->second == e)) {
            qWarning("differs: %s", path.c_str());
            return false;
        }
    }
    for (const auto &[path, e] : b) {
        if (!a.count(path)) {
            qWarning("only in the copy: %s", path.c_str());
            return false;
        }
    }
    if (linkGroups(a) != linkGroups(b)) {
        qWarning("hard links differ");
        return false;
    }
    return true;
}

void writeFile(const std::string &path, const std::string &content, mode_t mode = 0644)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    QVERIFY2(fd >= 0, path.c_str());
    QCOMPARE(::write(fd, content.data(), content.size()), ssize_t(content.size()));
    QCOMPARE(::fchmod(fd, mode), 0);
    ::close(fd);
}

// A save records only files whose change time is older than the save's start (a change in the same clock
// tick could go unseen otherwise): the tests let the clock move on before saving what they just wrote.
void letTheClockTick()
{
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

Files::MirrorLimits generousLimits()
{
    Files::MirrorLimits limits;
    limits.maxBytes = std::int64_t(1) << 32;
    limits.maxEntries = 100000;
    return limits;
}

class SourceTree
{
public:
    explicit SourceTree(const std::string &root) : m_root(root) {}

    std::string at(const std::string &rel) const { return m_root + '/' + rel; }

    // Every kind of entry the mirror keeps.
    void fill()
    {
        QCOMPARE(::mkdir(at("a").c_str(), 0755), 0);
        QCOMPARE(::mkdir(at("a/deep").c_str(), 0700), 0);
        QCOMPARE(::mkdir(at("empty").c_str(), 0750), 0);
        QCOMPARE(::mkdir(at("becomesFile").c_str(), 0755), 0);
        writeFile(at("becomesFile/inside"), "inside");
        writeFile(at("a/one"), "one");
        writeFile(at("a/deep/two"), std::string(100000, 't'), 0640);
        writeFile(at("forged"), "original content");
        writeFile(at("gone"), "gone");
        writeFile(at("becomesDir"), "a file first");
        writeFile(at("script"), "#!/bin/sh\n", 0755);
        writeFile(at("a/linked"), "two names");
        QCOMPARE(::link(at("a/linked").c_str(), at("linkedToo").c_str()), 0);
        QCOMPARE(::symlink("a/one", at("symlink").c_str()), 0);
        QCOMPARE(::symlink("/etc/passwd", at("outward").c_str()), 0);
        // A sparse file: 4 KiB of data 4 MiB in, 8 MiB long.
        const int fd = ::open(at("sparse").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        QVERIFY(fd >= 0);
        QCOMPARE(::pwrite(fd, std::string(4096, 's').data(), 4096, 4 << 20), ssize_t(4096));
        QCOMPARE(::ftruncate(fd, 8 << 20), 0);
        ::close(fd);
        const timespec old[2] = {{1000000000, 123456789}, {1000000000, 987654321}};
        QCOMPARE(::utimensat(AT_FDCWD, at("a/deep/two").c_str(), old, AT_SYMLINK_NOFOLLOW), 0);
        QCOMPARE(::utimensat(AT_FDCWD, at("a/deep").c_str(), old, AT_SYMLINK_NOFOLLOW), 0);
    }

private:
    std::string m_root;
};

} // namespace

class TestTreeMirror : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        QVERIFY(m_source.isValid() && m_host.isValid());
        m_hostDir = m_host.path().toStdString() + "/work";
        m_sourceFd = ::open(m_source.path().toLocal8Bit().constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(m_sourceFd >= 0);
    }

    void cleanup()
    {
        ::close(m_sourceFd);
        m_source.remove();
        m_host.remove();
        m_source = QTemporaryDir();
        m_host = QTemporaryDir();
    }

    void incrementalSaveLinksOnlyUnchangedFiles_data()
    {
        QTest::addColumn<bool>("durable");
        QTest::newRow("plain") << false;
        QTest::newRow("durable") << true;
    }

    void incrementalSaveLinksOnlyUnchangedFiles()
    {
        QFETCH(bool, durable);
        SourceTree source(m_source.path().toStdString());
        source.fill();
        if (QTest::currentTestFailed())
            return;
        letTheClockTick();
        Files::MirrorLimits limits = generousLimits();
        limits.durable = durable;
        Files::MirrorManifest manifest;
        const auto first = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(first);
        QCOMPARE(first->linkedFiles, 0);
        QCOMPARE(first->files, 10);
        QCOMPARE(first->copiedBytes, first->bytes);
        QVERIFY(sameTree(m_source.path().toStdString(), m_hostDir));
        QCOMPARE(manifest.durable, durable);
        QCOMPARE(manifest.files.size(), std::size_t(9)); // linkedToo is the second name of a/linked
        QVERIFY(manifest.files.count("a/deep/two") == 1);
        const Tree before = snapshot(m_hostDir);

        // The changes: a write, a forged one (same size, the old times put back), a deletion, a file that
        // became a directory and a directory that became a file, a new file, a chmod.
        writeFile(source.at("a/one"), "one, longer");
        struct stat forged;
        QCOMPARE(::stat(source.at("forged").c_str(), &forged), 0);
        const int fd = ::open(source.at("forged").c_str(), O_WRONLY | O_CLOEXEC);
        QCOMPARE(::pwrite(fd, "FORGED!!", 8, 0), ssize_t(8));
        ::close(fd);
        const timespec times[2] = {forged.st_atim, forged.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, source.at("forged").c_str(), times, 0), 0);
        struct stat after;
        QCOMPARE(::stat(source.at("forged").c_str(), &after), 0);
        QCOMPARE(after.st_size, forged.st_size);
        QCOMPARE(after.st_mtim.tv_nsec, forged.st_mtim.tv_nsec);
        QCOMPARE(after.st_mtim.tv_sec, forged.st_mtim.tv_sec);
        QCOMPARE(::unlink(source.at("gone").c_str()), 0);
        QCOMPARE(::unlink(source.at("becomesDir").c_str()), 0);
        QCOMPARE(::mkdir(source.at("becomesDir").c_str(), 0755), 0);
        writeFile(source.at("becomesDir/now"), "a directory now");
        QCOMPARE(::unlink(source.at("becomesFile/inside").c_str()), 0);
        QCOMPARE(::rmdir(source.at("becomesFile").c_str()), 0);
        writeFile(source.at("becomesFile"), "a file now");
        writeFile(source.at("new"), "new");
        QCOMPARE(::chmod(source.at("script").c_str(), 0700), 0);
        letTheClockTick();

        const auto second = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(second);
        QVERIFY(sameTree(m_source.path().toStdString(), m_hostDir));
        const Tree now = snapshot(m_hostDir);
        // Unchanged: the very inodes of the previous copy (the second name linked within the new tree).
        for (const char *unchanged : {"a/deep/two", "sparse", "a/linked", "linkedToo"})
            QVERIFY2(now.at(unchanged).inode == before.at(unchanged).inode, unchanged);
        for (const char *changed : {"a/one", "forged", "script"})
            QVERIFY2(now.at(changed).inode != before.at(changed).inode, changed);
        QCOMPARE(now.at("forged").content, std::string("FORGED!! content"));
        QVERIFY(!now.count("gone"));
        QCOMPARE(now.at("becomesDir").type, 'd');
        QCOMPARE(now.at("becomesFile").type, 'f');
        QCOMPARE(second->linkedFiles, 3); // a/deep/two, sparse, a/linked
        QCOMPARE(second->files, 10);
        QCOMPARE(second->copiedBytes,
                 std::int64_t(std::string("one, longer").size() + std::string("original content").size() +
                              std::string("#!/bin/sh\n").size() + std::string("a directory now").size() +
                              std::string("a file now").size() + std::string("new").size()));
        QCOMPARE(second->bytes, first->bytes - std::int64_t(4 + 3 + 12 + 6) + std::int64_t(11 + 15 + 10 + 3));
        QVERIFY(!manifest.files.count("gone"));
        QVERIFY(!manifest.files.count("becomesFile/inside"));

        // Nothing changed: everything is linked, nothing copied, and the copy is still the source.
        const auto third = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(third);
        QCOMPARE(third->copiedBytes, 0);
        QCOMPARE(third->linkedFiles, 9);
        QCOMPARE(third->bytes, second->bytes);
        QVERIFY(sameTree(m_source.path().toStdString(), m_hostDir));
        // The generations share inodes, not the staging directory: nothing is left beside the copy.
        QCOMPARE(::access((m_hostDir + ".saving").c_str(), F_OK), -1);
        QCOMPARE(::access((m_hostDir + ".old").c_str(), F_OK), -1);
        QCOMPARE(snapshot(m_hostDir).at("a/deep/two").links, nlink_t(1));
    }

    // Without a manifest, or with one the host copy no longer matches, everything is copied again.
    void whatCannotBeProvenIsCopied()
    {
        SourceTree source(m_source.path().toStdString());
        source.fill();
        letTheClockTick();
        Files::MirrorLimits limits = generousLimits();
        Files::MirrorManifest manifest;
        QVERIFY_RESULT(Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest));
        const Files::MirrorManifest kept = manifest;

        const auto plain = Files::saveTree(m_sourceFd, m_hostDir, limits);
        QVERIFY_RESULT(plain);
        QCOMPARE(plain->linkedFiles, 0);
        // The copy in place now is not the one the manifest describes: no inode matches.
        manifest = kept;
        const auto stale = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(stale);
        QCOMPARE(stale->linkedFiles, 0);
        QVERIFY(sameTree(m_source.path().toStdString(), m_hostDir));
        // A file of the host copy replaced behind the engine's back (same size, times and mode) is not
        // linked into the next copy.
        const std::string planted = m_hostDir + "/a/deep/two";
        struct stat st;
        QCOMPARE(::stat(planted.c_str(), &st), 0);
        // (Made beside it and renamed over it: an inode number freed first could be handed out again.)
        writeFile(planted + ".new", std::string(100000, 'X'), 0640);
        const timespec times[2] = {st.st_atim, st.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, (planted + ".new").c_str(), times, 0), 0);
        QCOMPARE(::rename((planted + ".new").c_str(), planted.c_str()), 0);
        const auto replanted = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(replanted);
        QCOMPARE(replanted->linkedFiles, 8);
        QVERIFY(sameTree(m_source.path().toStdString(), m_hostDir));
        // A durable save does not link from a copy that was not written durably.
        limits.durable = true;
        const auto durable = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(durable);
        QCOMPARE(durable->linkedFiles, 0);
        QVERIFY(manifest.durable);
        const auto again = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(again);
        QCOMPARE(again->linkedFiles, 9);
    }

    // A save that fails part-way (here: a file size limit, so that writing the changed file fails with
    // EFBIG after the unchanged ones were linked) leaves the previous copy and the manifest as they were.
    void failedSaveKeepsThePreviousCopy()
    {
        SourceTree source(m_source.path().toStdString());
        source.fill();
        writeFile(source.at("big"), std::string(2 << 20, 'b'));
        letTheClockTick();
        const Files::MirrorLimits limits = generousLimits();
        Files::MirrorManifest manifest;
        QVERIFY_RESULT(Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest));
        const Tree saved = snapshot(m_hostDir);
        const std::size_t recorded = manifest.files.size();
        const ino_t bigInode = manifest.files.at("big").hostInode;

        writeFile(source.at("big"), std::string(2 << 20, 'c'));
        letTheClockTick();
        struct rlimit previous;
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &previous), 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit small = previous;
        small.rlim_cur = 1 << 20;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
        const auto failed = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        ::setrlimit(RLIMIT_FSIZE, &previous);
        std::signal(SIGXFSZ, oldHandler);
        QVERIFY(!failed);
        QCOMPARE(failed.error().code(), std::string("files.mirror"));
        QCOMPARE(failed.error().sysErrno(), EFBIG);

        const Tree kept = snapshot(m_hostDir);
        QCOMPARE(kept.size(), saved.size());
        for (const auto &[path, e] : saved) {
            QVERIFY2(kept.at(path) == e, path.c_str());
            QVERIFY2(kept.at(path).inode == e.inode || e.type != 'f', path.c_str());
        }
        QCOMPARE(::access((m_hostDir + ".saving").c_str(), F_OK), -1);
        QCOMPARE(manifest.files.size(), recorded);
        QCOMPARE(manifest.files.at("big").hostInode, bigInode);

        const auto next = Files::saveTree(m_sourceFd, m_hostDir, limits, &manifest);
        QVERIFY_RESULT(next);
        QCOMPARE(next->linkedFiles, 9);
        QCOMPARE(next->copiedBytes, std::int64_t(2 << 20));
        QVERIFY(sameTree(m_source.path().toStdString(), m_hostDir));
    }

    // Workspace::save threads one manifest per tree: work/ without the outputs/ mount point, and outputs/.
    void workspaceSaveIsIncremental()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        qputenv("CORDON_DATA_DIR", data.path().toLocal8Bit());
        auto workspace = Containers::Workspace::create("0123456789abcdef", ::geteuid(), ::getegid());
        QVERIFY_RESULT(workspace);
        SourceTree source(m_source.path().toStdString());
        QCOMPARE(::mkdir(source.at("outputs").c_str(), 0755), 0);
        writeFile(source.at("outputs/result.csv"), "a,b\n1,2\n");
        writeFile(source.at("notes.txt"), "notes");
        writeFile(source.at("data.bin"), std::string(300000, 'd'));
        letTheClockTick();
        const int outputsFd = ::open(source.at("outputs").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(outputsFd >= 0);
        Containers::WorkspaceManifest manifest;
        const auto first = workspace->save(m_sourceFd, outputsFd, generousLimits(), &manifest);
        QVERIFY_RESULT(first);
        QCOMPARE(first->files, 3);
        QCOMPARE(first->linkedFiles, 0);
        QCOMPARE(manifest.work.files.size(), std::size_t(2));
        QCOMPARE(manifest.outputs.files.size(), std::size_t(1));

        writeFile(source.at("notes.txt"), "more notes");
        letTheClockTick();
        const auto second = workspace->save(m_sourceFd, outputsFd, generousLimits(), &manifest);
        ::close(outputsFd);
        QVERIFY_RESULT(second);
        QCOMPARE(second->files, 3);
        QCOMPARE(second->linkedFiles, 2);
        QCOMPARE(second->copiedBytes, 10);
        const auto paths = workspace->paths();
        QVERIFY(sameTree(source.at("outputs"), paths.outputs));
        QCOMPARE(snapshot(paths.work).at("notes.txt").content, std::string("more notes"));
        QCOMPARE(snapshot(paths.work).at("data.bin").content, std::string(300000, 'd'));
        QVERIFY(!snapshot(paths.work).count("outputs/result.csv"));
        QVERIFY_RESULT(workspace->remove());
        qunsetenv("CORDON_DATA_DIR");
    }

private:
    QTemporaryDir m_source;
    QTemporaryDir m_host;
    std::string m_hostDir;
    int m_sourceFd = -1;
};

QTEST_GUILESS_MAIN(TestTreeMirror)
#include "tst_treemirror.moc"
