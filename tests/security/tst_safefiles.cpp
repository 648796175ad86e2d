// SPDX-License-Identifier: MIT
// Host-side file handling against trees that untrusted code built (SECURITY.md section 3): every hostile
// entry is refused with its exact code, the regular files beside it arrive with the right SHA-256, and
// nothing the sandbox planted is followed. Every test runs twice: with openat2(2) and with the
// openat(O_NOFOLLOW) walk.
#include "childreport.h"
#include "core/plainbridge.h"
#include "sandbox/files/filenames.h"
#include "sandbox/files/pendingfile.h"
#include "sandbox/files/removetree.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/files/safeopen.h"
#include "sandbox/workspace.h"
#include "testutil.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <set>
#include <string>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Cordon;
using namespace Cordon::Files;

namespace {

constexpr std::int64_t Cap = 64 * 1024;
constexpr std::int64_t OneTiB = std::int64_t(1) << 40;
const std::string HelloSha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
const std::string EmptySha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const std::string NestedSha = "370a8c04b8a65bb4494275eec227f1b694db04c76da6b0b8ae88ed1ab19790a3";

bool isRoot()
{
    return ::geteuid() == 0;
}

mode_t currentUmask()
{
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return mask;
}

bool report(bool ok, const QByteArray &what)
{
    if (!ok)
        qWarning("%s: %s", what.constData(), std::strerror(errno));
    return ok;
}

// Fixture helpers take raw bytes: the names under test are not all valid UTF-8.
bool makeFile(const QByteArray &path, const QByteArray &content, mode_t mode = 0644)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (!report(fd >= 0, "create " + path))
        return false;
    const bool ok = ::write(fd, content.constData(), size_t(content.size())) == content.size() &&
                    ::fchmod(fd, mode) == 0; // fchmod: the umask must not eat the setuid bit under test
    ::close(fd);
    return report(ok, "write " + path);
}

bool makeDir(const QByteArray &path, mode_t mode = 0755)
{
    return report(::mkdir(path.constData(), mode) == 0, "mkdir " + path);
}

bool makeSymlink(const QByteArray &target, const QByteArray &path)
{
    return report(::symlink(target.constData(), path.constData()) == 0, "symlink " + path);
}

// bind() on a name relative to the directory, so a long $TMPDIR cannot overflow sun_path.
bool makeSocket(const QByteArray &dir, const QByteArray &name)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (!report(fd >= 0, "socket"))
        return false;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
    const QByteArray saved = QDir::currentPath().toLocal8Bit();
    bool ok = ::chdir(dir.constData()) == 0;
    ok = ok && ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
    ::close(fd);
    return report(::chdir(saved.constData()) == 0 && ok, "bind " + dir + '/' + name);
}

QByteArray readAll(const QByteArray &path)
{
    QFile file(QFile::decodeName(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

// The reference the copier's nettle hash is checked against.
std::string sha256Hex(const QByteArray &data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex().toStdString();
}

bool isEmptyDir(const QByteArray &path)
{
    return QDir(QFile::decodeName(path))
        .isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

bool exists(const QByteArray &path)
{
    struct stat st;
    return ::lstat(path.constData(), &st) == 0;
}

// Everything below `root` that is not a plain directory or a regular file with one link, or that carries a
// temporary name; empty when the tree is clean. Walks with lstat, never following anything.
QStringList uncleanEntries(const QByteArray &root)
{
    QStringList problems;
    QList<QByteArray> pending{root};
    while (!pending.isEmpty()) {
        const QByteArray dir = pending.takeLast();
        const QStringList names =
            QDir(QFile::decodeName(dir))
                .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
        for (const QString &name : names) {
            const QByteArray path = dir + '/' + QFile::encodeName(name);
            struct stat st;
            if (::lstat(path.constData(), &st) != 0) {
                problems << QStringLiteral("unstattable ") + name;
            } else if (S_ISDIR(st.st_mode)) {
                pending << path;
            } else if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
                problems << QStringLiteral("not a plain file: ") + name;
            }
            if (name.startsWith(QLatin1String(".cordon-")))
                problems << QStringLiteral("temporary file: ") + name;
        }
    }
    return problems;
}

std::string plain(const QByteArray &bytes)
{
    return bytes.toStdString();
}

// Sets environment variables for one scope and puts back what was there.
class EnvironmentGuard final
{
public:
    explicit EnvironmentGuard(std::initializer_list<const char *> names)
    {
        for (const char *name : names)
            m_saved.push_back(
                {name, qEnvironmentVariableIsSet(name) ? std::optional(qgetenv(name)) : std::nullopt});
    }
    ~EnvironmentGuard()
    {
        for (const auto &[name, value] : m_saved) {
            if (value)
                qputenv(name, *value);
            else
                qunsetenv(name);
        }
    }
    Q_DISABLE_COPY_MOVE(EnvironmentGuard)

private:
    std::vector<std::pair<const char *, std::optional<QByteArray>>> m_saved;
};

// What Qt 6.4's QChar says escapeForDisplay() must show as "\u{...}": the reference for the plain table.
bool qtSaysEscape(char32_t c)
{
    switch (QChar::category(c)) {
    case QChar::Other_Control:
    case QChar::Other_Format:
    case QChar::Other_Surrogate:
    case QChar::Other_PrivateUse:
    case QChar::Other_NotAssigned:
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
        return true;
    default:
        return false;
    }
}

const RefusedEntry *findRefused(const CopyReport &report, std::string_view path)
{
    for (const RefusedEntry &entry : report.refused) {
        if (entry.relativePath == path)
            return &entry;
    }
    return nullptr;
}

struct HostileEntry
{
    const char *row;
    QByteArray name;
    const char *code;
    const char *shown; // escaped: ASCII
};

// The hostile outputs/ directory, one row per entry that must be refused.
QList<HostileEntry> hostileEntries()
{
    return {
        {"symlink to /etc/passwd", "sym-passwd", "files.symlink", "sym-passwd"},
        {"symlink to ..", "sym-dotdot", "files.symlink", "sym-dotdot"},
        {"symlink to /", "sym-root", "files.symlink", "sym-root"},
        {"symlink inside the tree", "sym-inside", "files.symlink", "sym-inside"},
        {"symlink to a magic link", "sym-proc", "files.symlink", "sym-proc"},
        {"directory symlink", "linkdir", "files.symlink", "linkdir"},
        {"hardlink to an outside file", "hard", "files.hardlink", "hard"},
        {"fifo", "fifo", "files.fifo", "fifo"},
        {"unix socket", "sock", "files.socket", "sock"},
        {"device node", "null", "files.device", "null"},
        {"1 TiB sparse file", "sparse.bin", "files.too_large", "sparse.bin"},
        {"file over the cap", "big.bin", "files.too_large", "big.bin"},
        {"newline", "new\nline", "files.bad_name", "new\\x0aline"},
        {"ANSI escape", "esc\x1b[31m", "files.bad_name", "esc\\x1b[31m"},
        {"U+202E", "rlo\xe2\x80\xaetxt.exe", "files.bad_name", "rlo\\u{202e}txt.exe"},
        {"invalid UTF-8", "bad\xff\xfe", "files.bad_name", "bad\\xff\\xfe"},
        {"C1 control", "c1\xc2\x85", "files.bad_name", "c1\\u{85}"},
        {"leading dash", "-rf", "files.bad_name", "-rf"},
        {"name with a hostile regular file below", "sub\x1b", "files.bad_name", "sub\\x1b"},
    };
}

} // namespace

class TestSafeFiles : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void initTestCase();
    void init();
    void cleanup();
    void cleanupTestCase();

    void exportRefusesHostileEntry_data();
    void exportRefusesHostileEntry();
    void exportCopiesOnlyRegularFiles();
    void exportDropsModeBits();
    void exportRefusesSymlinkRoot();
    void exportStopsAtMaxEntries();
    void exportAtTheTotalLimitNamesEveryFileNotCopied();
    void exportRefusesBeyondMaxDepth();
    void exportStopsAtTotalBytes();
    void exportKeepsExistingDestinationNames();
    void exportIntoItsOwnSource();
    void exportUnreadableDirectory();
    void exportAndRemoveStopAtMountPoints_data();
    void exportAndRemoveStopAtMountPoints();
    void exportFile_data();
    void exportFile();
    void exportFileKeepsExistingDestination();
    void exportKeepBothTakesTheNextFreeName();
    void keepBothName_data();
    void keepBothName();
    void listTreeMatchesExport();

    void openat2EnosysFallsBackToWalk();
    void copyCappedReadsToEndNotToSize();
    void copyCappedKeepsHoles();
    void copiedSha256MatchesQCryptographicHash_data();
    void copiedSha256MatchesQCryptographicHash();
    void pendingFileAppearsOnlyWhenCommitted();

    void removeTreeLeavesLinkTargets();
    void removeTreeVeryDeep();
    void removeTreeMissingAndSymlinkPaths();
    void plainRemoveTreeHostileTree();
    void plainRemoveTreeMessages();
    void plainRemoveTreeMountPointMessages();

    void importFileRoundTrips();
    void importFileRefusesBadNames_data();
    void importFileRefusesBadNames();
    void importFileRefusesSources_data();
    void importFileRefusesSources();
    void importFileRefusesExistingAndSymlinkedInputs();

    void validateName_data();
    void validateName();
    void escapeForDisplay_data();
    void escapeForDisplay();
    void escapeTableMatchesQChar();

    void dataDirectoryMatchesQStandardPaths_data();
    void dataDirectoryMatchesQStandardPaths();
    void newContainerIdIsRandomHex();
    void plainWorkspaceCreateRepairAndRemove();
    void plainWorkspaceFailureWording();

private:
    QByteArray path(const char *relative) const { return m_base + '/' + relative; }
    // A new empty directory for one test's output.
    QByteArray freshDir(const char *prefix);
    CopyLimits hostileLimits() const
    {
        CopyLimits limits;
        limits.maxFileBytes = Cap;
        return limits;
    }

    QTemporaryDir m_tmp;
    QByteArray m_base; // canonical: the roots must not pass through a symlink, and $TMPDIR might
    QByteArray m_outputs;
    bool m_haveDevice = false;
    int m_fresh = 0;
};

void TestSafeFiles::initTestCase_data()
{
    QTest::addColumn<bool>("walk");
    QTest::newRow("openat2") << false;
    QTest::newRow("openat-walk") << true;
}

void TestSafeFiles::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_base = QFile::encodeName(QDir(m_tmp.path()).canonicalPath());
    m_outputs = path("outputs");

    // Outside the tree: what hostile links point at. All of it must survive every test.
    QVERIFY(makeDir(path("outside")));
    QVERIFY(makeFile(path("outside/secret"), "host secret\n", 0600));
    QVERIFY(makeDir(path("outside/dir")));
    QVERIFY(makeFile(path("outside/dir/kept"), "kept\n"));

    const QByteArray o = m_outputs + '/';
    QVERIFY(makeDir(m_outputs));
    QVERIFY(makeFile(o + "ok.txt", "hello\n"));
    QVERIFY(makeFile(o + "empty", ""));
    QVERIFY(makeDir(o + "sub"));
    QVERIFY(makeFile(o + "sub/nested.txt", "nested\n"));
    QVERIFY(makeFile(o + "exact.bin", QByteArray(Cap, 'e')));
    QVERIFY(makeFile(o + "big.bin", QByteArray(Cap + 1, 'b')));
    QVERIFY(makeFile(o + "setuid.sh", "#!/bin/sh\n", 04755));
    QVERIFY(makeFile(o + "sparse.bin", ""));
    QVERIFY(report(::truncate(QByteArray(o + "sparse.bin").constData(), OneTiB) == 0, "truncate to 1 TiB"));
    QVERIFY(makeSymlink("/etc/passwd", o + "sym-passwd"));
    QVERIFY(makeSymlink("..", o + "sym-dotdot"));
    QVERIFY(makeSymlink("/", o + "sym-root"));
    QVERIFY(makeSymlink("ok.txt", o + "sym-inside"));
    QVERIFY(makeSymlink("/proc/self/root/etc/passwd", o + "sym-proc"));
    QVERIFY(makeSymlink("/etc", o + "linkdir"));
    QVERIFY(
        report(::link(path("outside/secret").constData(), QByteArray(o + "hard").constData()) == 0, "link"));
    QVERIFY(report(::mkfifo(QByteArray(o + "fifo").constData(), 0644) == 0, "mkfifo"));
    QVERIFY(makeSocket(m_outputs, "sock"));
    // Root without CAP_MKNOD (some containers) cannot make one either; the device row is skipped then.
    m_haveDevice =
        isRoot() && ::mknod(QByteArray(o + "null").constData(), S_IFCHR | 0666, makedev(1, 3)) == 0;
    for (const HostileEntry &entry : hostileEntries()) {
        if (qstrcmp(entry.code, "files.bad_name") == 0 && entry.name != "sub\x1b")
            QVERIFY(makeFile(o + entry.name, "bad name\n"));
    }
    QVERIFY(makeDir(o + "sub\x1b"));
    QVERIFY(makeFile(o + "sub\x1b/inside.txt", "never reached\n"));
}

void TestSafeFiles::init()
{
    QFETCH_GLOBAL(bool, walk);
    Detail::setOpenat2Disabled(walk);
    // A FIFO opened the blocking way would hang forever; fail fast instead.
    ::alarm(120);
}

void TestSafeFiles::cleanup()
{
    ::alarm(0);
    Detail::setOpenat2Disabled(false);
}

void TestSafeFiles::cleanupTestCase()
{
    // chmod-000 leftovers defeat QTemporaryDir's cleanup when not root; removeTree is made for them.
    QVERIFY_RESULT(removeTree(plain(m_base)));
}

QByteArray TestSafeFiles::freshDir(const char *prefix)
{
    const QByteArray dir = m_base + '/' + prefix + '-' + QByteArray::number(++m_fresh);
    if (!makeDir(dir))
        return QByteArray("/nonexistent");
    return dir;
}

void TestSafeFiles::exportRefusesHostileEntry_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("shown");
    for (const HostileEntry &entry : hostileEntries())
        QTest::newRow(entry.row) << entry.name << QString::fromLatin1(entry.code)
                                 << QString::fromLatin1(entry.shown);
}

void TestSafeFiles::exportRefusesHostileEntry()
{
    QFETCH(QByteArray, name);
    QFETCH(QString, code);
    QFETCH(QString, shown);
    if (name == "null" && !m_haveDevice)
        QSKIP("creating a device node needs root with CAP_MKNOD");

    const QByteArray destination = freshDir("dest");
    const auto result = exportTree(plain(m_outputs), plain(destination), hostileLimits());
    QVERIFY_RESULT(result);
    const RefusedEntry *refused = findRefused(*result, toPlain(shown));
    QVERIFY2(refused, qPrintable(QStringLiteral("no refusal for ") + shown));
    QCOMPARE(toQt(refused->code), code);
    QVERIFY(!refused->reason.empty());
    QVERIFY(!exists(destination + '/' + name));
    QCOMPARE(uncleanEntries(destination), QStringList());
}

void TestSafeFiles::exportCopiesOnlyRegularFiles()
{
    const QByteArray destination = freshDir("dest");
    const auto result = exportTree(plain(m_outputs), plain(destination), hostileLimits());
    QVERIFY_RESULT(result);

    // Bytewise name order at each level, regular files only.
    const QByteArray exact(Cap, 'e');
    const QByteArray setuid("#!/bin/sh\n");
    const QList<QPair<QString, QByteArray>> expected{
        {QStringLiteral("empty"), ""},
        {QStringLiteral("exact.bin"), exact},
        {QStringLiteral("ok.txt"), "hello\n"},
        {QStringLiteral("setuid.sh"), setuid},
        {QStringLiteral("sub/nested.txt"), "nested\n"},
    };
    QCOMPARE(result->copied.size(), std::size_t(expected.size()));
    std::int64_t total = 0;
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const CopiedFile &file = result->copied.at(std::size_t(i));
        QCOMPARE(toQt(file.relativePath), expected.at(i).first);
        QCOMPARE(file.size, expected.at(i).second.size());
        QCOMPARE(file.sha256Hex, sha256Hex(expected.at(i).second));
        QCOMPARE(readAll(destination + '/' + QByteArray::fromStdString(file.relativePath)),
                 expected.at(i).second);
        total += file.size;
    }
    // Known vectors, so a broken hash cannot agree with itself.
    QCOMPARE(result->copied.at(0).sha256Hex, EmptySha);
    QCOMPARE(result->copied.at(2).sha256Hex, HelloSha);
    QCOMPARE(result->copied.at(4).sha256Hex, NestedSha);
    QCOMPARE(result->totalBytes, total);
    QVERIFY(!result->truncated);

    // Exactly the hostile entries were refused: nothing else, nothing twice.
    QCOMPARE(result->refused.size(), std::size_t(hostileEntries().size() - (m_haveDevice ? 0 : 1)));
    QCOMPARE(uncleanEntries(destination), QStringList());
    QStringList top = QDir(QFile::decodeName(destination))
                          .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    top.sort();
    QCOMPARE(top, QStringList({QStringLiteral("empty"), QStringLiteral("exact.bin"), QStringLiteral("ok.txt"),
                               QStringLiteral("setuid.sh"), QStringLiteral("sub")}));
    // The outside world is untouched.
    QCOMPARE(readAll(path("outside/secret")), QByteArray("host secret\n"));
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));
}

void TestSafeFiles::exportDropsModeBits()
{
    const QByteArray destination = freshDir("dest");
    QVERIFY_RESULT(exportTree(plain(m_outputs), plain(destination), hostileLimits()));
    struct stat source;
    struct stat copy;
    QCOMPARE(::stat(QByteArray(m_outputs + "/setuid.sh").constData(), &source), 0);
    QCOMPARE(source.st_mode & 07777, mode_t(04755));
    QCOMPARE(::stat(QByteArray(destination + "/setuid.sh").constData(), &copy), 0);
    QCOMPARE(copy.st_mode & 07777, mode_t(0644 & ~currentUmask()));
    QCOMPARE(copy.st_uid, ::geteuid());
}

void TestSafeFiles::exportRefusesSymlinkRoot()
{
    const QByteArray rootLink = path("rootlink");
    if (!exists(rootLink))
        QVERIFY(makeSymlink(m_outputs, rootLink));
    const QByteArray parentLink = path("parentlink");
    if (!exists(parentLink))
        QVERIFY(makeSymlink(m_base, parentLink));
    const QByteArray destination = freshDir("dest");

    for (const QByteArray &root : QByteArrayList{rootLink, parentLink + "/outputs"}) {
        const auto exported = exportTree(plain(root), plain(destination));
        QVERIFY(!exported);
        QCOMPARE(exported.error().code(), "files.symlink");
        const auto listed = listTree(plain(root));
        QVERIFY(!listed);
        QCOMPARE(listed.error().code(), "files.symlink");
        const auto single = Cordon::Files::exportFile(plain(root), "ok.txt", plain(destination + "/ok.txt"));
        QVERIFY(!single);
        QCOMPARE(single.error().code(), "files.symlink");
    }
    QVERIFY(isEmptyDir(destination));

    const auto missing = exportTree(plain(path("no-such-dir")), plain(destination));
    QVERIFY(!missing);
    QCOMPARE(missing.error().code(), "files.not_found");
    const auto noDestination = exportTree(plain(m_outputs), plain(path("no-such-dest")));
    QVERIFY(!noDestination);
    QCOMPARE(noDestination.error().code(), "files.destination");
}

void TestSafeFiles::exportStopsAtMaxEntries()
{
    const QByteArray many = path("many");
    if (!exists(many)) {
        QVERIFY(makeDir(many));
        for (int i = 0; i < 5000; ++i)
            QVERIFY(makeFile(many + "/f" + QByteArray::number(i).rightJustified(4, '0'), "x"));
    }
    CopyLimits limits;
    limits.maxEntries = 1000;
    const QByteArray destination = freshDir("dest");
    const auto capped = exportTree(plain(many), plain(destination), limits);
    QVERIFY_RESULT(capped);
    QCOMPARE(capped->copied.size(), std::size_t(1000));
    QVERIFY(capped->truncated);
    QCOMPARE(capped->refused.size(), std::size_t(1));
    QCOMPARE(capped->refused.at(0).code, "files.too_many");
    QCOMPARE(capped->refused.at(0).relativePath, ".");
    QCOMPARE(QDir(QFile::decodeName(destination)).count(), 1000 + 2);

    const auto all = listTree(plain(many));
    QVERIFY_RESULT(all);
    QCOMPARE(all->copied.size(), std::size_t(5000));
    QVERIFY(!all->truncated);
    QVERIFY(all->refused.empty());
    QCOMPARE(all->totalBytes, 5000);
}

// The byte budget stops the copying, not the report: each file after the limit is named, with the sparse
// one counted at its apparent size, so that "everything else was copied" stays true.
void TestSafeFiles::exportAtTheTotalLimitNamesEveryFileNotCopied()
{
    const QByteArray tree = freshDir("budget");
    QVERIFY(makeFile(tree + "/a.txt", QByteArray(600, 'a')));
    QVERIFY(makeFile(tree + "/b.txt", QByteArray(600, 'b')));
    QVERIFY(makeDir(tree + "/c"));
    QVERIFY(makeFile(tree + "/c/d.txt", "d"));
    QVERIFY(makeFile(tree + "/e.bin", ""));
    QVERIFY(report(::truncate(QByteArray(tree + "/e.bin").constData(), 900) == 0, "truncate"));
    CopyLimits limits;
    limits.maxTotalBytes = 1000;
    const QByteArray destination = freshDir("budget-dest");
    const auto copied = exportTree(plain(tree), plain(destination), limits);
    QVERIFY_RESULT(copied);
    QCOMPARE(copied->copied.size(), std::size_t(1));
    QCOMPARE(copied->copied.at(0).relativePath, "a.txt");
    QVERIFY(copied->truncated);
    QStringList refused;
    for (const RefusedEntry &entry : copied->refused) {
        QCOMPARE(entry.code, "files.too_large");
        refused << QString::fromStdString(entry.relativePath);
    }
    QCOMPARE(refused,
             (QStringList{QStringLiteral("b.txt"), QStringLiteral("c/d.txt"), QStringLiteral("e.bin")}));
    QVERIFY(!exists(destination + "/b.txt") && !exists(destination + "/c/d.txt") &&
            !exists(destination + "/e.bin"));
}

void TestSafeFiles::exportRefusesBeyondMaxDepth()
{
    // deep/f, deep/d/f, deep/d/d/f, ... 100 levels; deep/d^i/f has i + 1 components.
    const QByteArray deep = path("deep");
    if (!exists(deep)) {
        QByteArray level = deep;
        for (int i = 0; i <= 100; ++i) {
            QVERIFY(makeDir(level));
            QVERIFY(makeFile(level + "/f", QByteArray::number(i)));
            level += "/d";
        }
    }
    for (const int maxDepth : {32, 5}) {
        CopyLimits limits;
        limits.maxDepth = maxDepth;
        const QByteArray destination = freshDir("dest");
        const auto result = exportTree(plain(deep), plain(destination), limits);
        QVERIFY_RESULT(result);
        // "d" sorts before "f": the walk reaches the deepest file first and deep/f last.
        QStringList expected;
        QString dirs;
        for (int i = 0; i < maxDepth; ++i) {
            expected.prepend(dirs + QStringLiteral("f"));
            dirs += QStringLiteral("d/");
        }
        QStringList copied;
        for (const CopiedFile &file : result->copied) {
            copied << toQt(file.relativePath);
            QCOMPARE(readAll(destination + '/' + QByteArray::fromStdString(file.relativePath)),
                     QByteArray::number(std::count(file.relativePath.begin(), file.relativePath.end(), '/')));
        }
        QCOMPARE(copied, expected);
        QCOMPARE(result->refused.size(), std::size_t(1));
        QCOMPARE(result->refused.at(0).code, "files.too_deep");
        QCOMPARE(toQt(result->refused.at(0).relativePath), dirs.chopped(1));
        QVERIFY(!result->truncated);
    }
}

void TestSafeFiles::exportStopsAtTotalBytes()
{
    const QByteArray source = freshDir("total");
    QVERIFY(makeFile(source + "/a", "12345"));
    QVERIFY(makeFile(source + "/b", "123456"));
    QVERIFY(makeFile(source + "/c", "1"));
    CopyLimits limits;
    limits.maxTotalBytes = 10;
    const QByteArray destination = freshDir("dest");
    const auto result = exportTree(plain(source), plain(destination), limits);
    QVERIFY_RESULT(result);
    QCOMPARE(result->copied.size(), std::size_t(1));
    QCOMPARE(result->copied.at(0).relativePath, "a");
    QCOMPARE(result->totalBytes, 5);
    QVERIFY(result->truncated);
    // b passed the limit; c would fit, but nothing is copied after the limit is reached: both are named.
    QCOMPARE(result->refused.size(), std::size_t(2));
    QCOMPARE(result->refused.at(0).relativePath, "b");
    QCOMPARE(result->refused.at(0).code, "files.too_large");
    QCOMPARE(result->refused.at(1).relativePath, "c");
    QVERIFY(!exists(destination + "/b"));
    QVERIFY(!exists(destination + "/c"));
}

void TestSafeFiles::exportKeepsExistingDestinationNames()
{
    const QByteArray destination = freshDir("dest");
    QVERIFY(makeFile(destination + "/ok.txt", "mine\n"));
    // A symlink in the destination where a source directory goes must not lead the copy outside.
    QVERIFY(makeSymlink(path("outside/dir"), destination + "/sub"));
    const auto result = exportTree(plain(m_outputs), plain(destination), hostileLimits());
    QVERIFY_RESULT(result);
    const RefusedEntry *ok = findRefused(*result, "ok.txt");
    QVERIFY(ok);
    QCOMPARE(ok->code, "files.exists");
    QCOMPARE(readAll(destination + "/ok.txt"), QByteArray("mine\n"));
    const RefusedEntry *sub = findRefused(*result, "sub");
    QVERIFY(sub);
    QCOMPARE(sub->code, "files.exists");
    QVERIFY(!exists(path("outside/dir/nested.txt")));
    QCOMPARE(result->copied.size(), std::size_t(3)); // empty, exact.bin, setuid.sh
}

void TestSafeFiles::exportIntoItsOwnSource()
{
    const QByteArray source = freshDir("self");
    QVERIFY(makeFile(source + "/a.txt", "a"));
    QVERIFY(makeDir(source + "/into"));
    const auto result = exportTree(plain(source), plain(source + "/into"));
    QVERIFY_RESULT(result);
    QCOMPARE(result->copied.size(), std::size_t(1));
    QCOMPARE(readAll(source + "/into/a.txt"), QByteArray("a"));
    QCOMPARE(result->refused.size(), std::size_t(1));
    QCOMPARE(result->refused.at(0).relativePath, "into");
    QCOMPARE(result->refused.at(0).code, "files.not_regular");

    const auto same = exportTree(plain(source), plain(source));
    QVERIFY(!same);
    QCOMPARE(same.error().code(), "files.destination");
}

void TestSafeFiles::exportUnreadableDirectory()
{
    const QByteArray source = freshDir("locked-src");
    QVERIFY(makeDir(source + "/locked"));
    QVERIFY(makeFile(source + "/locked/inside.txt", "inside"));
    QVERIFY(report(::chmod(QByteArray(source + "/locked").constData(), 0) == 0, "chmod"));
    const auto result = listTree(plain(source));
    QVERIFY_RESULT(result);
    if (isRoot()) {
        // CAP_DAC_OVERRIDE reads it anyway; the copy never changes a source's modes.
        QCOMPARE(result->copied.size(), std::size_t(1));
        QVERIFY(result->refused.empty());
    } else {
        QVERIFY(result->copied.empty());
        QCOMPARE(result->refused.size(), std::size_t(1));
        QCOMPARE(result->refused.at(0).relativePath, "locked");
        QCOMPARE(result->refused.at(0).code, "files.unreadable");
    }
    struct stat st;
    QCOMPARE(::stat(QByteArray(source + "/locked").constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0));
}

void TestSafeFiles::exportAndRemoveStopAtMountPoints_data()
{
    QTest::addColumn<bool>("bind");
    QTest::newRow("tmpfs") << false;
    QTest::newRow("bind mount, same device") << true;
}

void TestSafeFiles::exportAndRemoveStopAtMountPoints()
{
    QFETCH(bool, bind);
    if (!isRoot())
        QSKIP("mounting needs root");
    const QByteArray tree = freshDir("mounted");
    QVERIFY(makeFile(tree + "/a.txt", "a"));
    QVERIFY(makeDir(tree + "/mnt"));
    const QByteArray target = freshDir("mount-target");
    QVERIFY(makeFile(target + "/precious", "precious"));
    const int rc =
        bind ? ::mount(target.constData(), QByteArray(tree + "/mnt").constData(), nullptr, MS_BIND, nullptr)
             : ::mount("tmpfs", QByteArray(tree + "/mnt").constData(), "tmpfs", 0, "size=1m");
    if (rc != 0)
        QSKIP(
            qPrintable(QStringLiteral("cannot mount here: ") + QString::fromLocal8Bit(std::strerror(errno))));
    struct Unmount
    {
        QByteArray at;
        ~Unmount() { ::umount2(at.constData(), MNT_DETACH); }
    } unmount{tree + "/mnt"};
    if (!bind)
        QVERIFY(makeFile(tree + "/mnt/precious", "precious"));

    const QByteArray destination = freshDir("dest");
    const auto result = exportTree(plain(tree), plain(destination));
    QVERIFY_RESULT(result);
    QCOMPARE(result->copied.size(), std::size_t(1));
    QCOMPARE(result->refused.size(), std::size_t(1));
    QCOMPARE(result->refused.at(0).relativePath, "mnt");
    QCOMPARE(result->refused.at(0).code, "files.not_regular");
    QVERIFY(!exists(destination + "/mnt"));

    const auto removed = removeTree(plain(tree));
    QVERIFY(!removed);
    QCOMPARE(removed.error().code(), std::string("files.mount_point"));
    QCOMPARE(readAll(tree + "/mnt/precious"), QByteArray("precious"));
    QVERIFY(!exists(tree + "/a.txt"));
}

void TestSafeFiles::exportFile_data()
{
    QTest::addColumn<QString>("relativePath");
    QTest::addColumn<QString>("code"); // empty: copied
    QTest::addColumn<QByteArray>("content");
    const auto row = [](const char *name, const char *relative, const char *code,
                        const QByteArray &content = {}) {
        QTest::newRow(name) << QString::fromUtf8(relative) << QString::fromLatin1(code) << content;
    };
    row("top-level file", "ok.txt", "", "hello\n");
    row("nested file", "sub/nested.txt", "", "nested\n");
    row("directory symlink mid-path", "linkdir/passwd", "files.symlink");
    row("symlink to /etc/passwd", "sym-passwd", "files.symlink");
    row("symlink to a magic link", "sym-proc", "files.symlink");
    row("dot-dot escape", "../outside/secret", "files.bad_name");
    row("dot-dot inside", "sub/../ok.txt", "files.bad_name");
    row("absolute path", "/etc/passwd", "files.bad_name");
    row("empty component", "sub//nested.txt", "files.bad_name");
    row("hardlink", "hard", "files.hardlink");
    row("fifo", "fifo", "files.fifo");
    row("socket", "sock", "files.socket");
    row("sparse 1 TiB", "sparse.bin", "files.too_large");
    row("directory", "sub", "files.not_regular");
    row("missing", "missing", "files.not_found");
    row("through a file", "ok.txt/x", "files.not_directory");
}

void TestSafeFiles::exportFile()
{
    QFETCH(QString, relativePath);
    QFETCH(QString, code);
    QFETCH(QByteArray, content);
    const QByteArray destination = freshDir("dest");
    const auto result = Cordon::Files::exportFile(plain(m_outputs), toPlain(relativePath),
                                                  plain(destination + "/out"), hostileLimits());
    if (code.isEmpty()) {
        QVERIFY_RESULT(result);
        QCOMPARE(toQt(result->relativePath), relativePath);
        QCOMPARE(result->size, content.size());
        QCOMPARE(result->sha256Hex, sha256Hex(content));
        QCOMPARE(readAll(destination + "/out"), content);
    } else {
        QVERIFY(!result);
        QCOMPARE(toQt(result.error().code()), code);
        QVERIFY(!exists(destination + "/out"));
    }
    QCOMPARE(uncleanEntries(destination), QStringList());
}

void TestSafeFiles::exportFileKeepsExistingDestination()
{
    const QByteArray destination = freshDir("dest");
    QVERIFY(makeFile(destination + "/taken", "mine\n"));
    QVERIFY(makeSymlink(path("outside/secret"), destination + "/link"));
    for (const char *name : {"taken", "link"}) {
        const auto result =
            Cordon::Files::exportFile(plain(m_outputs), "ok.txt", plain(destination + '/' + name));
        QVERIFY(!result);
        QCOMPARE(result.error().code(), "files.exists");
    }
    QCOMPARE(readAll(destination + "/taken"), QByteArray("mine\n"));
    QCOMPARE(readAll(path("outside/secret")), QByteArray("host secret\n"));
}

void TestSafeFiles::exportKeepBothTakesTheNextFreeName()
{
    const QByteArray destination = freshDir("dest");
    QVERIFY(makeFile(destination + "/ok.txt", "mine\n"));
    QVERIFY(makeFile(destination + "/ok (2).txt", "mine too\n"));
    QVERIFY(makeSymlink(path("outside/secret"), destination + "/link"));
    CopyLimits limits = hostileLimits();
    limits.existingNames = ExistingName::KeepBoth;

    // A tree: the taken name moves on past every taken candidate; what was there is untouched.
    const auto tree = exportTree(plain(m_outputs), plain(destination), limits);
    QVERIFY_RESULT(tree);
    QVERIFY(!findRefused(*tree, "ok.txt"));
    const auto copiedOk = std::find_if(tree->copied.cbegin(), tree->copied.cend(),
                                       [](const CopiedFile &file) { return file.relativePath == "ok.txt"; });
    QVERIFY(copiedOk != tree->copied.cend());
    QCOMPARE(copiedOk->savedAs, "ok (3).txt");
    QCOMPARE(readAll(destination + "/ok.txt"), QByteArray("mine\n"));
    QCOMPARE(readAll(destination + "/ok (2).txt"), QByteArray("mine too\n"));
    QVERIFY(exists(destination + "/ok (3).txt"));

    // A single file over a symlink: saved beside it, never through it.
    const auto single =
        Cordon::Files::exportFile(plain(m_outputs), "ok.txt", plain(destination + "/link"), limits);
    QVERIFY_RESULT(single);
    QCOMPARE(single->savedAs, "link (2)");
    QCOMPARE(readAll(path("outside/secret")), QByteArray("host secret\n"));
    QCOMPARE(readAll(destination + "/link (2)"), readAll(m_outputs + "/ok.txt"));
    // No temporary file left behind by the tries (the planted symlink itself is expected).
    QCOMPARE(QDir(QFile::decodeName(destination))
                 .entryList({QStringLiteral(".cordon-*")}, QDir::AllEntries | QDir::Hidden | QDir::System),
             QStringList());
}

void TestSafeFiles::keepBothName_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<int>("attempt");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("extension") << QByteArray("report.csv") << 2 << QByteArray("report (2).csv");
    QTest::newRow("tarball") << QByteArray("archive.tar.gz") << 3 << QByteArray("archive (3).tar.gz");
    QTest::newRow("dotfile") << QByteArray(".bashrc") << 2 << QByteArray(".bashrc (2)");
    QTest::newRow("no extension") << QByteArray("Makefile") << 10 << QByteArray("Makefile (10)");
    QTest::newRow("long") << QByteArray(251, 'a') + ".txt" << 2 << QByteArray(247, 'a') + " (2).txt";
    // 125 two-byte characters: cut to fit, never in the middle of one.
    QTest::newRow("utf-8 cut") << QByteArray("\xc3\xa9").repeated(125) + ".txt" << 2
                               << QByteArray("\xc3\xa9").repeated(123) + " (2).txt";
}

void TestSafeFiles::keepBothName()
{
    QFETCH(QByteArray, name);
    QFETCH(int, attempt);
    QFETCH(QByteArray, expected);
    const std::string made = Cordon::Files::keepBothName(plain(name), attempt);
    QCOMPARE(made, plain(expected));
    QVERIFY(made.size() <= NAME_MAX);
    QVERIFY_RESULT(Files::validateName(made));
}

void TestSafeFiles::listTreeMatchesExport()
{
    const auto listed = listTree(plain(m_outputs), hostileLimits());
    QVERIFY_RESULT(listed);
    const auto exported = exportTree(plain(m_outputs), plain(freshDir("dest")), hostileLimits());
    QVERIFY_RESULT(exported);
    QCOMPARE(listed->copied.size(), exported->copied.size());
    for (std::size_t i = 0; i < listed->copied.size(); ++i) {
        QCOMPARE(listed->copied.at(i).relativePath, exported->copied.at(i).relativePath);
        QCOMPARE(listed->copied.at(i).sha256Hex, exported->copied.at(i).sha256Hex);
    }
    QCOMPARE(listed->refused.size(), exported->refused.size());
    for (std::size_t i = 0; i < listed->refused.size(); ++i) {
        QCOMPARE(listed->refused.at(i).relativePath, exported->refused.at(i).relativePath);
        QCOMPARE(listed->refused.at(i).code, exported->refused.at(i).code);
    }
    QCOMPARE(listed->totalBytes, exported->totalBytes);
}

void TestSafeFiles::openat2EnosysFallsBackToWalk()
{
    // What a seccomp profile that predates openat2 does (Docker's did): answer ENOSYS. A child installs such
    // a filter and must get the same result as the parent, through the walk the library switches to by
    // itself.
    const auto expected = listTree(plain(m_outputs), hostileLimits());
    QVERIFY_RESULT(expected);
    const QByteArray destination = freshDir("dest");
    constexpr int Sentinel = 42;
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        Detail::setOpenat2Disabled(false);
        if (!ChildReport::loseOpenat2())
            ::_exit(1);
        if (::syscall(SYS_openat2, AT_FDCWD, "/", nullptr, 0) != -1 || errno != ENOSYS)
            ::_exit(2);
        const auto listed = listTree(plain(m_outputs), hostileLimits());
        if (!listed || listed->copied.size() != expected->copied.size() ||
            listed->refused.size() != expected->refused.size())
            ::_exit(3);
        for (std::size_t i = 0; i < listed->refused.size(); ++i) {
            if (listed->refused.at(i).code != expected->refused.at(i).code)
                ::_exit(4);
        }
        const auto exported = exportTree(plain(m_outputs), plain(destination), hostileLimits());
        if (!exported || exported->copied.size() != expected->copied.size())
            ::_exit(5);
        const auto single =
            Cordon::Files::exportFile(plain(m_outputs), "linkdir/passwd", plain(destination + "/passwd"));
        if (single || single.error().code() != "files.symlink")
            ::_exit(6);
        ::_exit(Sentinel);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), Sentinel);
    QCOMPARE(uncleanEntries(destination), QStringList());
}

void TestSafeFiles::copyCappedReadsToEndNotToSize()
{
    // A file that grows after its size was checked is caught by the read loop itself, which never trusts
    // st_size.
    const QByteArray file = freshDir("capped") + "/grows";
    QVERIFY(makeFile(file, QByteArray(100, 'g')));
    const int fd = ::open(file.constData(), O_RDONLY | O_CLOEXEC);
    QVERIFY(fd >= 0);
    const auto over = copyCapped(fd, -1, 50);
    QVERIFY_RESULT(over);
    QVERIFY(over->exceededCap);
    QCOMPARE(over->bytes, 50);
    QCOMPARE(::lseek(fd, 0, SEEK_SET), off_t(0));
    const auto exact = copyCapped(fd, -1, 100);
    QVERIFY_RESULT(exact);
    QVERIFY(!exact->exceededCap);
    QCOMPARE(exact->bytes, 100);
    QCOMPARE(exact->sha256Hex, sha256Hex(QByteArray(100, 'g')));
    ::close(fd);
}

void TestSafeFiles::copyCappedKeepsHoles()
{
    // A sparse file saved from a container (a download on an override of the artifact scan, which does not
    // scan past 256 MiB) stays sparse: 64 MiB of holes must not become 64 MiB of the user's disk.
    const QByteArray dir = freshDir("sparse");
    const QByteArray file = dir + "/sparse.img";
    constexpr off_t Size = 64 * 1024 * 1024;
    {
        const int fd = ::open(file.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        QCOMPARE(::pwrite(fd, "head", 4, 0), ssize_t(4));
        QCOMPARE(::pwrite(fd, "tail", 4, Size - 4), ssize_t(4));
        ::close(fd);
    }
    const int source = ::open(file.constData(), O_RDONLY | O_CLOEXEC);
    const QByteArray copyPath = dir + "/copy.img";
    const int copy = ::open(copyPath.constData(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    QVERIFY(source >= 0 && copy >= 0);
    const auto copied = copyCapped(source, copy, Size);
    QVERIFY_RESULT(copied);
    QCOMPARE(copied->bytes, std::int64_t(Size));
    struct stat st;
    QCOMPARE(::fstat(copy, &st), 0);
    QCOMPARE(st.st_size, Size);
    QVERIFY2(st.st_blocks * 512 < 1024 * 1024, QByteArray::number(qint64(st.st_blocks) * 512).constData());
    QByteArray expected(Size, '\0');
    expected.replace(0, 4, "head");
    expected.replace(Size - 4, 4, "tail");
    QCOMPARE(copied->sha256Hex, sha256Hex(expected));
    QByteArray back(Size, 'x');
    QCOMPARE(::pread(copy, back.data(), std::size_t(Size), 0), ssize_t(Size));
    QVERIFY(back == expected);
    ::close(source);
    ::close(copy);
}

void TestSafeFiles::copiedSha256MatchesQCryptographicHash_data()
{
    QTest::addColumn<int>("size");
    QTest::newRow("empty") << 0;
    QTest::newRow("one byte") << 1;
    QTest::newRow("64 KiB + 1: past one read") << 64 * 1024 + 1;
}

void TestSafeFiles::copiedSha256MatchesQCryptographicHash()
{
    // The copier hashes with nettle as it reads; Qt's hash of the same bytes is the reference, for every way
    // a file is copied or listed.
    QFETCH(int, size);
    QByteArray content;
    for (int i = 0; i < size; ++i)
        content.append(char(i * 31 + i / 509));
    const std::string expected = sha256Hex(content);
    const QByteArray source = freshDir("hash-src");
    QVERIFY(makeFile(source + "/data", content));

    const auto exported = exportTree(plain(source), plain(freshDir("dest")));
    QVERIFY_RESULT(exported);
    QCOMPARE(exported->copied.size(), std::size_t(1));
    QCOMPARE(exported->copied.at(0).size, size);
    QCOMPARE(exported->copied.at(0).sha256Hex, expected);
    const auto listed = listTree(plain(source));
    QVERIFY_RESULT(listed);
    QCOMPARE(listed->copied.size(), std::size_t(1));
    QCOMPARE(listed->copied.at(0).sha256Hex, expected);
    const auto single = Cordon::Files::exportFile(plain(source), "data", plain(freshDir("dest") + "/data"));
    QVERIFY_RESULT(single);
    QCOMPARE(single->sha256Hex, expected);
    const auto imported = importFile(plain(source + "/data"), plain(freshDir("inputs")), "data");
    QVERIFY_RESULT(imported);
    QCOMPARE(imported->sha256Hex, expected);
}

void TestSafeFiles::pendingFileAppearsOnlyWhenCommitted()
{
    const QByteArray dir = freshDir("pending");
    const int dirFd = ::open(dir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    QVERIFY(dirFd >= 0);
    {
        auto abandoned = PendingFile::create(dirFd, "pending");
        QVERIFY_RESULT(abandoned);
        QCOMPARE(::write(abandoned->fd(), "partial", 7), ssize_t(7));
        QVERIFY(isEmptyDir(dir));
    }
    QVERIFY(isEmptyDir(dir));

    QVERIFY(makeFile(dir + "/taken", "mine"));
    auto clash = PendingFile::create(dirFd, "pending");
    QVERIFY_RESULT(clash);
    QCOMPARE(::write(clash->fd(), "theirs", 6), ssize_t(6));
    const auto clashed = clash->commit("taken", "taken");
    QVERIFY(!clashed);
    QCOMPARE(clashed.error().code(), "files.exists");
    QCOMPARE(readAll(dir + "/taken"), QByteArray("mine"));

    auto good = PendingFile::create(dirFd, "pending");
    QVERIFY_RESULT(good);
    QCOMPARE(::write(good->fd(), "done", 4), ssize_t(4));
    QVERIFY_RESULT(good->commit("final", "final"));
    QCOMPARE(readAll(dir + "/final"), QByteArray("done"));
    ::close(dirFd);
    QCOMPARE(uncleanEntries(dir), QStringList());
}

void TestSafeFiles::removeTreeLeavesLinkTargets()
{
    const QByteArray tree = freshDir("wipe");
    QVERIFY(makeFile(tree + "/file", "f"));
    QVERIFY(makeSymlink(path("outside/dir"), tree + "/escape"));
    QVERIFY(makeSymlink(path("outside/secret"), tree + "/secret-link"));
    QVERIFY(makeSymlink("..", tree + "/up"));
    QVERIFY(report(::mkfifo(QByteArray(tree + "/fifo").constData(), 0600) == 0, "mkfifo"));
    QVERIFY(makeSocket(tree, "sock"));
    QVERIFY(makeDir(tree + "/locked"));
    QVERIFY(makeFile(tree + "/locked/inside", "i"));
    QVERIFY(makeDir(tree + "/locked/deeper"));
    QVERIFY(makeFile(tree + "/locked/deeper/more", "m"));
    QVERIFY(report(::chmod(QByteArray(tree + "/locked/deeper").constData(), 0) == 0, "chmod"));
    QVERIFY(report(::chmod(QByteArray(tree + "/locked").constData(), 0) == 0, "chmod"));
    QVERIFY(makeDir(tree + "/readonly"));
    QVERIFY(makeFile(tree + "/readonly/kept-by-mode", "r"));
    QVERIFY(report(::chmod(QByteArray(tree + "/readonly").constData(), 0500) == 0, "chmod"));
    QByteArray level = tree + "/nest";
    for (int i = 0; i < 100; ++i) {
        QVERIFY(makeDir(level));
        level += "/n";
    }
    QVERIFY(makeSymlink(path("outside"), level));
    struct stat before;
    QCOMPARE(::stat(path("outside/dir").constData(), &before), 0);

    QVERIFY_RESULT(removeTree(plain(tree)));
    QVERIFY(!exists(tree));
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));
    QCOMPARE(readAll(path("outside/secret")), QByteArray("host secret\n"));
    struct stat after;
    QCOMPARE(::stat(path("outside/dir").constData(), &after), 0);
    QCOMPARE(after.st_mode, before.st_mode);
}

void TestSafeFiles::removeTreeVeryDeep()
{
    // Far past PATH_MAX (names made by descriptor), one level locked with chmod 000, and more levels than the
    // descriptor limit set below: an implementation holding a descriptor per level cannot pass.
    constexpr int Levels = 600;
    constexpr rlim_t DescriptorLimit = 200;
    const QByteArray tree = freshDir("deep-wipe");
    int fd = ::open(tree.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    QVERIFY(fd >= 0);
    int locked = -1;
    const QByteArray longName(200, 'x');
    for (int i = 0; i < Levels; ++i) {
        QVERIFY(report(::mkdirat(fd, longName.constData(), 0755) == 0, "mkdirat"));
        const int child = ::openat(fd, longName.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(child >= 0);
        if (i == Levels / 2)
            locked = fd;
        else
            ::close(fd);
        fd = child;
    }
    const int fileFd = ::openat(fd, "leaf", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    QVERIFY(fileFd >= 0);
    ::close(fileFd);
    ::close(fd);
    QVERIFY(locked >= 0);
    QCOMPARE(::fchmod(locked, 0), 0);
    ::close(locked);

    struct rlimit saved;
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &saved), 0);
    struct rlimit lowered = saved;
    lowered.rlim_cur = std::min(saved.rlim_cur, DescriptorLimit);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
    const auto removed = removeTree(plain(tree));
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &saved), 0);
    QVERIFY_RESULT(removed);
    QVERIFY(!exists(tree));
}

void TestSafeFiles::removeTreeMissingAndSymlinkPaths()
{
    QVERIFY_RESULT(removeTree(plain(path("never-existed"))));
    QVERIFY_RESULT(removeTree(plain(path("never-existed/child"))));

    // The path itself a symlink: the link goes, the directory it names stays.
    const QByteArray link = path("wipe-link");
    QVERIFY(makeSymlink(path("outside/dir"), link));
    QVERIFY_RESULT(removeTree(plain(link)));
    QVERIFY(!exists(link));
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));

    // A symlink above the last component is refused, not followed.
    const QByteArray parentLink = path("wipe-parent-link");
    QVERIFY(makeSymlink(path("outside"), parentLink));
    const auto refused = removeTree(plain(parentLink + "/dir"));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code(), std::string("files.symlink"));
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));
    QCOMPARE(::unlink(parentLink.constData()), 0);

    const auto root = removeTree("/");
    QVERIFY(!root);
    QCOMPARE(root.error().code(), std::string("files.remove"));
}

void TestSafeFiles::plainRemoveTreeHostileTree()
{
    // The plain removeTree, called directly with bytes (names that are not UTF-8 included), on the kind of
    // tree a sandbox leaves: links out of the tree at every depth, locked directories, special files, and a
    // nest deep enough to be moved up with renameat2.
    const QByteArray tree = freshDir("plain-wipe");
    QVERIFY(makeFile(tree + "/file", "f"));
    QVERIFY(makeFile(tree + "/bad\xff\xfe", "b"));
    QVERIFY(makeFile(tree + "/-rf", "r"));
    QVERIFY(makeDir(tree + "/new\nline"));
    QVERIFY(makeFile(tree + "/new\nline/inside", "i"));
    QVERIFY(makeSymlink(path("outside/dir"), tree + "/escape"));
    QVERIFY(makeSymlink(path("outside/secret"), tree + "/secret-link"));
    QVERIFY(makeSymlink("..", tree + "/up"));
    QVERIFY(report(::link(path("outside/secret").constData(), QByteArray(tree + "/hard").constData()) == 0,
                   "link"));
    QVERIFY(report(::mkfifo(QByteArray(tree + "/fifo").constData(), 0600) == 0, "mkfifo"));
    QVERIFY(makeSocket(tree, "sock"));
    QVERIFY(makeDir(tree + "/locked"));
    QVERIFY(makeDir(tree + "/locked/deeper"));
    QVERIFY(makeFile(tree + "/locked/deeper/more", "m"));
    QVERIFY(makeSymlink(path("outside"), tree + "/locked/deeper/out"));
    QVERIFY(report(::chmod(QByteArray(tree + "/locked/deeper").constData(), 0) == 0, "chmod"));
    QVERIFY(report(::chmod(QByteArray(tree + "/locked").constData(), 0) == 0, "chmod"));
    QByteArray level = tree + "/nest";
    for (int i = 0; i < 80; ++i) { // past the 64 levels held by descriptor
        QVERIFY(makeDir(level));
        level += "/n";
    }
    QVERIFY(makeSymlink(path("outside"), level));
    QVERIFY(makeFile(level + "-file", "deep"));
    struct stat before;
    QCOMPARE(::stat(path("outside/dir").constData(), &before), 0);

    QVERIFY_RESULT(removeTree(plain(tree + "//")));
    QVERIFY(!exists(tree));
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));
    QCOMPARE(readAll(path("outside/secret")), QByteArray("host secret\n"));
    struct stat after;
    QCOMPARE(::stat(path("outside/dir").constData(), &after), 0);
    QCOMPARE(after.st_mode, before.st_mode);
    QCOMPARE(::stat(path("outside/secret").constData(), &after), 0);
    QCOMPARE(after.st_mode & 07777, mode_t(0600));
}

void TestSafeFiles::plainRemoveTreeMessages()
{
    QVERIFY_RESULT(removeTree(plain(path("never-existed"))));
    QVERIFY_RESULT(removeTree(plain(path("never-existed/child"))));

    for (const char *unremovable : {"/", "", "relative/..", "."}) {
        const auto refused = removeTree(unremovable);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), std::string("files.remove"));
        QCOMPARE(refused.error().message(),
                 "remove `" + std::string(unremovable) + "`: not a removable path");
    }

    // The message names the path escaped.
    const QByteArray parentLink = path("plain-parent\nlink");
    QVERIFY(makeSymlink(path("outside"), parentLink));
    const auto refused = removeTree(plain(parentLink + "/dir"));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code(), std::string("files.symlink"));
    QCOMPARE(refused.error().sysErrno(), ELOOP);
    QCOMPARE(refused.error().message(), "remove `" + plain(m_base) +
                                            "/plain-parent\\x0alink/dir`: the parent directory is or passes "
                                            "through a symbolic link");
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));
    QCOMPARE(::unlink(parentLink.constData()), 0);
}

void TestSafeFiles::plainRemoveTreeMountPointMessages()
{
    if (!isRoot())
        QSKIP("mounting needs root");
    // A mount point below the tree, under a name that must be escaped in the message.
    const QByteArray tree = freshDir("plain-mounted");
    QVERIFY(makeFile(tree + "/a.txt", "a"));
    const QByteArray mountPoint = tree + "/m\x1bnt";
    QVERIFY(makeDir(mountPoint));
    if (::mount("tmpfs", mountPoint.constData(), "tmpfs", 0, "size=1m") != 0)
        QSKIP(
            qPrintable(QStringLiteral("cannot mount here: ") + QString::fromLocal8Bit(std::strerror(errno))));
    struct Unmount
    {
        QByteArray at;
        ~Unmount() { ::umount2(at.constData(), MNT_DETACH); }
    } unmount{mountPoint};
    QVERIFY(makeFile(mountPoint + "/precious", "precious"));
    const auto below = removeTree(plain(tree));
    QVERIFY(!below);
    QCOMPARE(below.error().code(), std::string("files.mount_point"));
    QCOMPARE(below.error().message(), "remove `" + plain(tree) + "`: `" + plain(tree) +
                                          "/m\\x1bnt` is a mount point; it was left in place");
    QCOMPARE(readAll(mountPoint + "/precious"), QByteArray("precious"));
    QVERIFY(!exists(tree + "/a.txt"));

    // The path itself a mount point: nothing is removed.
    const auto itself = removeTree(plain(mountPoint));
    QVERIFY(!itself);
    QCOMPARE(itself.error().code(), std::string("files.mount_point"));
    QCOMPARE(itself.error().sysErrno(), EXDEV);
    QCOMPARE(itself.error().message(), "remove `" + plain(tree) + "/m\\x1bnt`: it is a mount point");
    QCOMPARE(readAll(mountPoint + "/precious"), QByteArray("precious"));
}

void TestSafeFiles::importFileRoundTrips()
{
    const QByteArray inputs = freshDir("inputs");
    const QByteArray source = freshDir("host") + "/data.bin";
    QByteArray content;
    for (int i = 0; i < 100 * 1024; ++i)
        content.append(char(i * 7 + i / 251));
    QVERIFY(makeFile(source, content, 04755));
    const auto imported = importFile(plain(source), plain(inputs), "data.bin");
    QVERIFY_RESULT(imported);
    QCOMPARE(imported->relativePath, "data.bin");
    QCOMPARE(imported->size, content.size());
    QCOMPARE(imported->sha256Hex, sha256Hex(content));
    QCOMPARE(readAll(inputs + "/data.bin"), content);
    struct stat st;
    QCOMPARE(::stat(QByteArray(inputs + "/data.bin").constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0644 & ~currentUmask()));
    QCOMPARE(uncleanEntries(inputs), QStringList());

    // A symlink the user names is the user's choice and is followed (documented).
    const QByteArray link = source + ".link";
    QVERIFY(makeSymlink(source, link));
    const auto viaLink = importFile(plain(link), plain(inputs), "linked.bin");
    QVERIFY_RESULT(viaLink);
    QCOMPARE(readAll(inputs + "/linked.bin"), content);
}

void TestSafeFiles::importFileRefusesBadNames_data()
{
    QTest::addColumn<QByteArray>("name"); // UTF-8, as the copier takes it
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("dot") << QByteArray(".");
    QTest::newRow("dot-dot") << QByteArray("..");
    QTest::newRow("slash") << QByteArray("a/b");
    QTest::newRow("traversal") << QByteArray("../escape");
    QTest::newRow("leading dash") << QByteArray("-rf");
    QTest::newRow("newline") << QByteArray("a\nb");
    QTest::newRow("U+202E") << QByteArray("txt\xe2\x80\xae"
                                          "exe");
    // What a lone surrogate (U+D800) becomes in bytes: not UTF-8.
    QTest::newRow("lone surrogate") << QByteArray("\xed\xa0\x80");
    QTest::newRow("256 bytes") << QByteArray(256, 'n');
}

void TestSafeFiles::importFileRefusesBadNames()
{
    QFETCH(QByteArray, name);
    const QByteArray inputs = freshDir("inputs");
    const QByteArray source = freshDir("host") + "/data";
    QVERIFY(makeFile(source, "data"));
    const auto result = importFile(plain(source), plain(inputs), plain(name));
    QVERIFY(!result);
    QCOMPARE(result.error().code(), "files.bad_name");
    QVERIFY(isEmptyDir(inputs));
    QVERIFY(!exists(m_base + "/escape"));
}

void TestSafeFiles::importFileRefusesSources_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("code");
    QTest::newRow("fifo") << QByteArray("outputs/fifo") << QStringLiteral("files.fifo");
    QTest::newRow("socket") << QByteArray("outputs/sock") << QStringLiteral("files.socket");
    QTest::newRow("directory") << QByteArray("outputs/sub") << QStringLiteral("files.not_regular");
    QTest::newRow("too large") << QByteArray("outputs/big.bin") << QStringLiteral("files.too_large");
    QTest::newRow("sparse 1 TiB") << QByteArray("outputs/sparse.bin") << QStringLiteral("files.too_large");
    QTest::newRow("missing") << QByteArray("outputs/missing") << QStringLiteral("files.not_found");
    QTest::newRow("/dev/null") << QByteArray("/dev/null") << QStringLiteral("files.device");
}

void TestSafeFiles::importFileRefusesSources()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, code);
    const QByteArray inputs = freshDir("inputs");
    const QByteArray sourcePath = source.startsWith('/') ? source : m_base + '/' + source;
    const auto result = importFile(plain(sourcePath), plain(inputs), "in", hostileLimits());
    QVERIFY(!result);
    QCOMPARE(toQt(result.error().code()), code);
    QVERIFY(isEmptyDir(inputs));
}

void TestSafeFiles::importFileRefusesExistingAndSymlinkedInputs()
{
    const QByteArray inputs = freshDir("inputs");
    const QByteArray source = freshDir("host") + "/data";
    QVERIFY(makeFile(source, "new"));
    QVERIFY(makeFile(inputs + "/taken", "old"));
    QVERIFY(makeSymlink(path("outside/secret"), inputs + "/dangling-choice"));
    for (const char *name : {"taken", "dangling-choice"}) {
        const auto result = importFile(plain(source), plain(inputs), name);
        QVERIFY(!result);
        QCOMPARE(result.error().code(), "files.exists");
    }
    QCOMPARE(readAll(inputs + "/taken"), QByteArray("old"));
    QCOMPARE(readAll(path("outside/secret")), QByteArray("host secret\n"));

    const QByteArray inputsLink = path("inputs-link-") + QByteArray::number(++m_fresh);
    QVERIFY(makeSymlink(path("outside/dir"), inputsLink));
    const auto linked = importFile(plain(source), plain(inputsLink), "x");
    QVERIFY(!linked);
    QCOMPARE(linked.error().code(), "files.symlink");
    QVERIFY(!exists(path("outside/dir/x")));
}

void TestSafeFiles::validateName_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("valid");
    QTest::newRow("plain") << QByteArray("report.csv") << true;
    QTest::newRow("spaces and punctuation") << QByteArray("a b_c.d~e+f=g@h") << true;
    QTest::newRow("dot file") << QByteArray(".hidden") << true;
    QTest::newRow("three dots") << QByteArray("...") << true;
    QTest::newRow("inner dash") << QByteArray("a-b") << true;
    QTest::newRow("backslash") << QByteArray("a\\b") << true;
    QTest::newRow("accented") << QByteArray("r\xc3\xa9sum\xc3\xa9.pdf") << true;
    QTest::newRow("CJK") << QByteArray("\xe6\x97\xa5\xe6\x9c\xac") << true;
    QTest::newRow("emoji (4 bytes)") << QByteArray("\xf0\x9f\x98\x80") << true;
    QTest::newRow("255 bytes") << QByteArray(255, 'n') << true;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("dot") << QByteArray(".") << false;
    QTest::newRow("dot-dot") << QByteArray("..") << false;
    QTest::newRow("slash") << QByteArray("/") << false;
    QTest::newRow("inner slash") << QByteArray("a/b") << false;
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << false;
    QTest::newRow("newline") << QByteArray("a\nb") << false;
    QTest::newRow("carriage return") << QByteArray("a\rb") << false;
    QTest::newRow("tab") << QByteArray("a\tb") << false;
    QTest::newRow("ESC") << QByteArray("a\x1b[2Jb") << false;
    QTest::newRow("DEL") << QByteArray("a\x7f") << false;
    QTest::newRow("C1 NEL") << QByteArray("a\xc2\x85") << false;
    QTest::newRow("C1 CSI") << QByteArray("a\xc2\x9b") << false;
    QTest::newRow("U+202A") << QByteArray("a\xe2\x80\xaa") << false;
    QTest::newRow("U+202E") << QByteArray("a\xe2\x80\xae") << false;
    QTest::newRow("U+2066") << QByteArray("a\xe2\x81\xa6") << false;
    QTest::newRow("U+2069") << QByteArray("a\xe2\x81\xa9") << false;
    QTest::newRow("U+200E") << QByteArray("a\xe2\x80\x8e") << false;
    QTest::newRow("U+200F") << QByteArray("a\xe2\x80\x8f") << false;
    QTest::newRow("U+061C") << QByteArray("a\xd8\x9c") << false;
    QTest::newRow("lone continuation") << QByteArray("a\x80") << false;
    QTest::newRow("truncated sequence") << QByteArray("a\xe2\x80") << false;
    QTest::newRow("overlong slash") << QByteArray("a\xc0\xaf") << false;
    QTest::newRow("overlong NUL") << QByteArray("a\xc0\x80") << false;
    QTest::newRow("surrogate") << QByteArray("a\xed\xa0\x80") << false;
    QTest::newRow("above U+10FFFF") << QByteArray("a\xf4\x90\x80\x80") << false;
    QTest::newRow("Latin-1 byte") << QByteArray("caf\xe9") << false;
    QTest::newRow("256 bytes") << QByteArray(256, 'n') << false;
    QTest::newRow("leading dash") << QByteArray("-rf") << false;
    QTest::newRow("lone dash") << QByteArray("-") << false;
}

void TestSafeFiles::validateName()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, valid);
    const auto plainResult = Files::validateName(plain(name));
    QCOMPARE(bool(plainResult), valid);
    if (!valid) {
        QCOMPARE(plainResult.error().code(), std::string("files.bad_name"));
        QVERIFY(plainResult.error().message().find(Files::escapeForDisplay(plain(name))) !=
                std::string::npos);
    }
    // The wording, spelled out for two rows.
    if (name == "a\nb")
        QCOMPARE(plainResult.error().message(),
                 std::string("name `a\\x0ab` refused: contains a control character"));
    if (name.size() == 256)
        QCOMPARE(plainResult.error().message(),
                 "name `" + std::string(256, 'n') + "` refused: longer than 255 bytes");
}

void TestSafeFiles::escapeForDisplay_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QString>("shown");
    QTest::newRow("plain") << QByteArray("report.csv") << QStringLiteral("report.csv");
    QTest::newRow("empty") << QByteArray() << QString();
    QTest::newRow("newline") << QByteArray("a\nb") << QStringLiteral("a\\x0ab");
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << QStringLiteral("a\\x00b");
    QTest::newRow("ESC sequence") << QByteArray("\x1b[31mred") << QStringLiteral("\\x1b[31mred");
    QTest::newRow("DEL") << QByteArray("\x7f") << QStringLiteral("\\x7f");
    QTest::newRow("backslash") << QByteArray("a\\x41") << QStringLiteral("a\\\\x41");
    QTest::newRow("invalid bytes") << QByteArray("bad\xff\xfe") << QStringLiteral("bad\\xff\\xfe");
    QTest::newRow("truncated sequence") << QByteArray("a\xe2\x80") << QStringLiteral("a\\xe2\\x80");
    QTest::newRow("overlong") << QByteArray("\xc0\xaf") << QStringLiteral("\\xc0\\xaf");
    QTest::newRow("C1") << QByteArray("\xc2\x9b") << QStringLiteral("\\u{9b}");
    QTest::newRow("RLO") << QByteArray("txt\xe2\x80\xae"
                                       "exe")
                         << QStringLiteral("txt\\u{202e}exe");
    QTest::newRow("LRI") << QByteArray("\xe2\x81\xa6") << QStringLiteral("\\u{2066}");
    QTest::newRow("zero width space") << QByteArray("a\xe2\x80\x8b"
                                                    "b")
                                      << QStringLiteral("a\\u{200b}b");
    QTest::newRow("line separator") << QByteArray("a\xe2\x80\xa8"
                                                  "b")
                                    << QStringLiteral("a\\u{2028}b");
    QTest::newRow("accented kept") << QByteArray("r\xc3\xa9sum\xc3\xa9")
                                   << QString::fromUtf8("r\u00e9sum\u00e9");
    QTest::newRow("emoji kept") << QByteArray("\xf0\x9f\x98\x80") << QString::fromUtf8("\U0001F600");
}

void TestSafeFiles::escapeForDisplay()
{
    QFETCH(QByteArray, name);
    QFETCH(QString, shown);
    const QString escaped = QString::fromStdString(Files::escapeForDisplay(plain(name)));
    QCOMPARE(escaped, shown);
    for (const QChar c : escaped) {
        QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7f, "control character left in the display string");
        QVERIFY(c.category() != QChar::Other_Format);
    }
}

void TestSafeFiles::escapeTableMatchesQChar()
{
    QFETCH_GLOBAL(bool, walk);
    if (walk)
        QSKIP("no file access: one run is enough");
    // Every code point through the plain escapeForDisplay against QChar's categories, so that the plain
    // table and the Qt build cannot drift apart (a new Qt with a new Unicode version would show up here).
    int mismatches = 0;
    for (char32_t c = 0x80; c <= 0x10ffff; ++c) {
        if (c >= 0xd800 && c <= 0xdfff)
            continue; // not encodable in UTF-8; escapeForDisplay shows the bytes
        // By hand: QString::fromUcs4() would take U+FEFF for a byte order mark and drop it.
        QByteArray utf8;
        if (c < 0x800) {
            utf8 += char(0xc0 | (c >> 6));
        } else if (c < 0x10000) {
            utf8 += char(0xe0 | (c >> 12));
            utf8 += char(0x80 | ((c >> 6) & 0x3f));
        } else {
            utf8 += char(0xf0 | (c >> 18));
            utf8 += char(0x80 | ((c >> 12) & 0x3f));
            utf8 += char(0x80 | ((c >> 6) & 0x3f));
        }
        utf8 += char(0x80 | (c & 0x3f));
        const std::string shown =
            Files::escapeForDisplay(std::string_view(utf8.constData(), size_t(utf8.size())));
        const bool escaped = shown.size() > 2 && shown.compare(0, 3, "\\u{") == 0;
        if (escaped != qtSaysEscape(c) && ++mismatches <= 10)
            qWarning("U+%04X: plain %s, QChar says %s", unsigned(c), escaped ? "escapes" : "keeps",
                     qtSaysEscape(c) ? "escape" : "keep");
        if (escaped) {
            char expected[16];
            std::snprintf(expected, sizeof expected, "\\u{%x}", unsigned(c));
            QCOMPARE(shown, std::string(expected));
        } else if (shown != utf8.toStdString()) {
            QFAIL(
                qPrintable(QStringLiteral("U+%1 not copied as it is").arg(uint(c), 4, 16, QLatin1Char('0'))));
        }
    }
    QCOMPARE(mismatches, 0);
}

void TestSafeFiles::dataDirectoryMatchesQStandardPaths_data()
{
    QTest::addColumn<QByteArray>("home"); // "<unset>": unset
    QTest::addColumn<QByteArray>("xdgDataHome");
    QTest::addColumn<QByteArray>("expected"); // empty: only compared with Qt
    const QByteArray unset = "<unset>";
    QTest::newRow("home") << QByteArray("/home/u") << unset << QByteArray("/home/u/.local/share/cordon");
    QTest::newRow("home with trailing slash")
        << QByteArray("/home/u/") << unset << QByteArray("/home/u/.local/share/cordon");
    QTest::newRow("home with dots") << QByteArray("/a/../b//c/.") << unset << QByteArray();
    QTest::newRow("home relative") << QByteArray("rel") << unset << QByteArray();
    QTest::newRow("home relative dot-dots") << QByteArray("a/../..") << unset << QByteArray();
    QTest::newRow("home above the root") << QByteArray("/..") << unset << QByteArray();
    QTest::newRow("home is the root") << QByteArray("/") << unset << QByteArray("//.local/share/cordon");
    QTest::newRow("home is //") << QByteArray("//") << unset << QByteArray();
    QTest::newRow("home empty") << QByteArray() << unset << QByteArray("//.local/share/cordon");
    QTest::newRow("home unset") << unset << unset << QByteArray("//.local/share/cordon");
    QTest::newRow("xdg") << QByteArray("/home/u") << QByteArray("/x/y") << QByteArray("/x/y/cordon");
    QTest::newRow("xdg taken as it is") << QByteArray("/home/u") << QByteArray("/x/../y/") << QByteArray();
    QTest::newRow("xdg relative") << QByteArray("/home/u") << QByteArray("rel") << QByteArray("rel/cordon");
    QTest::newRow("xdg empty") << QByteArray("/home/u") << QByteArray()
                               << QByteArray("/home/u/.local/share/cordon");
    QTest::newRow("xdg without home") << unset << QByteArray("/d") << QByteArray("/d/cordon");
}

void TestSafeFiles::dataDirectoryMatchesQStandardPaths()
{
    QFETCH(QByteArray, home);
    QFETCH(QByteArray, xdgDataHome);
    QFETCH(QByteArray, expected);
    EnvironmentGuard guard{"HOME", "XDG_DATA_HOME", "CORDON_DATA_DIR"};
    const auto set = [](const char *name, const QByteArray &value) {
        if (value == "<unset>")
            qunsetenv(name);
        else
            qputenv(name, value);
    };
    set("HOME", home);
    set("XDG_DATA_HOME", xdgDataHome);
    qunsetenv("CORDON_DATA_DIR");
    const QString reference =
        QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/cordon");
    const std::string dataDir = Cordon::Containers::dataDirectory();
    QCOMPARE(QFile::decodeName(QByteArray::fromStdString(dataDir)), reference);
    if (!expected.isEmpty())
        QCOMPARE(dataDir, plain(expected));

    // CORDON_DATA_DIR wins when it is not empty, taken as it is.
    qputenv("CORDON_DATA_DIR", "/srv/cordon/");
    QCOMPARE(Cordon::Containers::dataDirectory(), std::string("/srv/cordon/"));
    qputenv("CORDON_DATA_DIR", "");
    QCOMPARE(Cordon::Containers::dataDirectory(), dataDir);
}

void TestSafeFiles::newContainerIdIsRandomHex()
{
    const QRegularExpression shape(QStringLiteral("^[0-9a-f]{16}$"));
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const std::string id = Cordon::Containers::newContainerId();
        QVERIFY2(shape.match(QString::fromStdString(id)).hasMatch(), id.c_str());
        QVERIFY2(seen.insert(id).second, id.c_str());
    }
    QVERIFY(shape.match(QString::fromStdString(Cordon::Containers::newContainerId())).hasMatch());
    // 1000 ids with no leading zero at all would mean the padding is missing (the chance is 0.9375^1000).
    QVERIFY(std::any_of(seen.begin(), seen.end(), [](const std::string &id) { return id.front() == '0'; }));
}

void TestSafeFiles::plainWorkspaceCreateRepairAndRemove()
{
    using Cordon::Containers::Workspace;
    EnvironmentGuard guard{"CORDON_DATA_DIR"};
    // Reached through a symlink and not there yet: the parents are made, and the root is the canonical path.
    const QByteArray real = freshDir("data");
    const QByteArray viaLink = path("data-link");
    QVERIFY(makeSymlink(real, viaLink));
    qputenv("CORDON_DATA_DIR", viaLink + "/nested/dir");
    const std::string id = Cordon::Containers::newContainerId();
    const std::string expectedRoot = plain(real) + "/nested/dir/containers/" + id;

    auto created = Workspace::create(id, ::geteuid(), ::getegid(), Workspace::Layout::Container);
    QVERIFY_RESULT(created);
    QCOMPARE(created->root(), expectedRoot);
    QCOMPARE(Workspace::at(id).root(), expectedRoot);
    const auto paths = created->paths(Workspace::Layout::Container);
    QCOMPARE(paths.work, expectedRoot + "/work");
    QCOMPARE(paths.inputs, expectedRoot + "/inputs");
    QCOMPARE(paths.outputs, expectedRoot + "/outputs");
    QCOMPARE(paths.code, expectedRoot + "/code");
    QCOMPARE(created->paths(Workspace::Layout::OneShot).code, std::string());
    const auto modeOf = [](const std::string &entry) {
        struct stat st;
        return ::lstat(entry.c_str(), &st) == 0 ? st.st_mode : mode_t(0);
    };
    QCOMPARE(modeOf(expectedRoot), mode_t(S_IFDIR | 0700));
    for (const std::string &dir : {paths.work, paths.inputs, paths.outputs, paths.code})
        QCOMPARE(modeOf(dir), mode_t(S_IFDIR | 0755));
    // The mount points are made in the workspace tmpfs, not on the host.
    QCOMPARE(modeOf(paths.work + "/inputs"), mode_t(0));
    QCOMPARE(modeOf(paths.work + "/outputs"), mode_t(0));

    // What a workspace saved by an older Cordon may hold: the mount points swapped for a link out of the
    // tree and a file, modes changed.
    QVERIFY(makeSymlink(path("outside/dir"), QByteArray::fromStdString(paths.work + "/inputs")));
    QVERIFY(makeFile(QByteArray::fromStdString(paths.work + "/outputs"), "planted"));
    QCOMPARE(::chmod(paths.work.c_str(), 0700), 0);
    QVERIFY(makeFile(QByteArray::fromStdString(paths.outputs + "/result.txt"), "kept across starts"));

    auto again = Workspace::create(id, ::geteuid(), ::getegid(), Workspace::Layout::Container);
    QVERIFY_RESULT(again);
    QCOMPARE(again->root(), expectedRoot);
    QCOMPARE(modeOf(paths.work + "/inputs"), mode_t(0));
    QCOMPARE(modeOf(paths.work + "/outputs"), mode_t(0));
    QCOMPARE(modeOf(paths.work), mode_t(S_IFDIR | 0755));
    QCOMPARE(readAll(QByteArray::fromStdString(paths.outputs + "/result.txt")),
             QByteArray("kept across starts"));
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));

    // A root caller hands work/ and outputs/ to the unprivileged uid the code runs as, and nothing else.
    if (isRoot()) {
        const std::string other = Cordon::Containers::newContainerId();
        auto handed = Workspace::create(other, 65534, 65534, Workspace::Layout::Container);
        QVERIFY_RESULT(handed);
        const auto ownerOf = [](const std::string &entry) {
            struct stat st;
            return ::lstat(entry.c_str(), &st) == 0 ? std::pair(st.st_uid, st.st_gid) : std::pair(~0u, ~0u);
        };
        const auto otherPaths = handed->paths(Workspace::Layout::Container);
        QCOMPARE(ownerOf(otherPaths.work), std::pair(65534u, 65534u));
        QCOMPARE(ownerOf(otherPaths.outputs), std::pair(65534u, 65534u));
        QCOMPARE(ownerOf(otherPaths.inputs), std::pair(0u, 0u));
        QCOMPARE(ownerOf(otherPaths.code), std::pair(0u, 0u));
        QCOMPARE(ownerOf(handed->root()), std::pair(0u, 0u));
        QVERIFY_RESULT(handed->remove());
    }

    // A one-shot run's workspace starts empty and is never saved: inputs/ is all it has on the host.
    {
        const std::string fresh = Cordon::Containers::newContainerId();
        auto oneShot = Workspace::create(fresh, ::geteuid(), ::getegid(), Workspace::Layout::OneShot);
        QVERIFY_RESULT(oneShot);
        const auto freshPaths = oneShot->paths(Workspace::Layout::OneShot);
        QCOMPARE(modeOf(freshPaths.inputs), mode_t(S_IFDIR | 0755));
        for (const std::string &absent : {freshPaths.work, freshPaths.outputs, oneShot->root() + "/code"})
            QCOMPARE(modeOf(absent), mode_t(0));
        QVERIFY(freshPaths.code.empty());
        QVERIFY_RESULT(oneShot->remove());
    }

    QVERIFY_RESULT(again->remove());
    QVERIFY(!exists(QByteArray::fromStdString(expectedRoot)));
    QVERIFY_RESULT(again->remove());      // already gone
    QVERIFY_RESULT(Workspace().remove()); // no directory at all
    QCOMPARE(readAll(path("outside/dir/kept")), QByteArray("kept\n"));
    QCOMPARE(::unlink(viaLink.constData()), 0);
}

void TestSafeFiles::plainWorkspaceFailureWording()
{
    using Cordon::Containers::Workspace;
    EnvironmentGuard guard{"CORDON_DATA_DIR"};
    const QByteArray file = freshDir("not-a-dir") + "/file";
    QVERIFY(makeFile(file, "x"));
    qputenv("CORDON_DATA_DIR", file);
    const auto created = Workspace::create("0123456789abcdef", ::geteuid(), ::getegid());
    QVERIFY(!created);
    QCOMPARE(created.error().code(), std::string("workspace.io"));
    QCOMPARE(created.error().message(), "cannot create `" + plain(file) + "/containers`");
    QCOMPARE(created.error().sysErrno(), ENOTDIR);
}

QTEST_GUILESS_MAIN(TestSafeFiles)
#include "tst_safefiles.moc"
