// SPDX-License-Identifier: MIT
#include "sandbox/files/safecopy.h"

#include "sandbox/files/filenames.h"
#include "sandbox/files/pendingfile.h"
#include "sandbox/files/removetree.h"
#include "sandbox/files/safeopen.h"
#include "sandbox/files/treecopier.h"

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

Result<CopyReport> copyTree(const SourceRoot &sourceRoot, const std::string *destinationDir,
                            const CopyLimits &limits)
{
    struct stat rootStat;
    auto root = openSourceRoot(sourceRoot, &rootStat);
    if (!root)
        return fail(root.error());
    TreeCopier copier(limits, rootStat);
    UniqueFd destination;
    if (destinationDir) {
        struct stat destinationStat;
        auto opened = openDestinationDir(*destinationDir, &destinationStat);
        if (!opened)
            return fail(opened.error());
        if (destinationStat.st_dev == rootStat.st_dev && destinationStat.st_ino == rootStat.st_ino)
            return fail("files.destination",
                        "export " + ticked(sourceRoot.shown()) + ": the destination is the source itself");
        destination = std::move(*opened);
        copier.setDestination(destinationStat, shownPath(*destinationDir));
    }
    auto readable = reopenReadable(*root, sourceRoot.shown());
    if (!readable)
        return fail(readable.error());
    copier.walkDirectory(*readable, destination.get(), std::string(), std::string(), 0);
    if (copier.fatal())
        return fail(*copier.fatal());
    return copier.takeReport();
}

// "a/b" → {"a", "b"}; every '/' separates, so "", "/x", "a//b" and "a/" have empty components.
std::vector<std::string> splitComponents(std::string_view path)
{
    std::vector<std::string> components;
    for (;;) {
        const std::size_t slash = path.find('/');
        components.emplace_back(path.substr(0, slash));
        if (slash == std::string_view::npos)
            return components;
        path.remove_prefix(slash + 1);
    }
}

} // namespace

std::string SourceRoot::shown() const
{
    return m_directory ? m_shown : shownPath(m_path);
}

SourceRoot SourceRoot::below(const std::string &relative) const
{
    if (!m_directory)
        return SourceRoot(joinedPath(m_path, relative));
    return SourceRoot(m_directory, joinedPath(m_path, relative),
                      joinedPath(m_shown, escapeForDisplay(relative)));
}

Result<> removeBelow(const SourceRoot &root, const std::string &relativePath)
{
    const std::size_t slash = relativePath.rfind('/');
    const std::string name = slash == std::string::npos ? relativePath : relativePath.substr(slash + 1);
    const SourceRoot parent = slash == std::string::npos ? root : root.below(relativePath.substr(0, slash));
    const std::string shown = joinedPath(root.shown(), escapeForDisplay(relativePath));
    struct stat parentStat;
    auto parentFd = openSourceRoot(parent, &parentStat);
    if (!parentFd) {
        if (parentFd.error().code() == "files.not_found")
            return fail("files.not_found", shown + " does not exist", ENOENT);
        return fail(parentFd.error());
    }
    struct stat st;
    if (::fstatat(parentFd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
        return fail("files.not_found", shown + " does not exist", ENOENT);
    return removeEntry(parentFd->get(), name, shown);
}

Result<CopyReport> exportTree(const SourceRoot &sourceRoot, const std::string &destinationDir,
                              const CopyLimits &limits)
{
    return copyTree(sourceRoot, &destinationDir, limits);
}

Result<CopyReport> listTree(const SourceRoot &root, const CopyLimits &limits)
{
    return copyTree(root, nullptr, limits);
}

Result<CopiedFile> exportFile(const SourceRoot &sourceRoot, const std::string &relativePath,
                              const std::string &destinationPath, const CopyLimits &limits)
{
    const std::string what = "export " + ticked(shownPath(relativePath));
    const std::vector<std::string> components = splitComponents(relativePath);
    for (const std::string &component : components) {
        if (const auto valid = validateName(component); !valid)
            return fail(valid.error().wrap(what));
    }
    if (components.size() > std::size_t(std::clamp(limits.maxDepth, 0, MaxSupportedDepth)))
        return fail("files.too_deep",
                    what + ": more than " + std::to_string(limits.maxDepth) + " levels deep");

    const std::size_t slash = destinationPath.rfind('/');
    const std::string destinationName =
        slash == std::string::npos ? destinationPath : destinationPath.substr(slash + 1);
    const std::string destinationParent = slash == std::string::npos ? std::string(".")
                                          : slash == 0               ? std::string("/")
                                                                     : destinationPath.substr(0, slash);
    if (destinationName.empty() || destinationName == "." || destinationName == "..")
        return fail("files.destination",
                    what + ": " + ticked(shownPath(destinationPath)) + " does not name a file");

    struct stat rootStat;
    auto root = openSourceRoot(sourceRoot, &rootStat);
    if (!root)
        return fail(root.error().wrap(what));
    // Intermediate directories by descriptor, one component at a time, so a directory symlink in the middle
    // (linkdir/passwd) is refused like a file symlink.
    UniqueFd current = std::move(*root);
    std::string relDir;
    for (std::size_t i = 0; i + 1 < components.size(); ++i) {
        UniqueFd next = openBeneath(current.get(), components[i], O_PATH | O_DIRECTORY);
        const int error = errno;
        relDir = joinedPath(relDir, components[i]);
        if (!next.isValid()) {
            const std::string where = "export " + ticked(escapeForDisplay(relDir));
            if (error == ENOENT)
                return failErrno("files.not_found", where, error);
            if (error == ENOTDIR)
                return failErrno("files.not_directory", where, error);
            const Refusal refusal = refusalForOpenError(error);
            return fail(refusal.code, where + ": " + refusal.reason, error);
        }
        current = std::move(next);
    }

    struct stat destinationStat;
    auto destination = openDestinationDir(destinationParent, &destinationStat);
    if (!destination)
        return fail(destination.error().wrap(what));
    TreeCopier copier(limits, rootStat);
    copier.setDestination(destinationStat, shownPath(destinationParent));
    copier.setFilesOnly();
    copier.copyEntry(current.get(), destination->get(), relDir, escapeForDisplay(relDir), components.back(),
                     destinationName, int(components.size()));
    if (copier.fatal())
        return fail(copier.fatal()->wrap(what));
    if (!copier.report().refused.empty()) {
        const RefusedEntry &refused = copier.report().refused.front();
        return fail(refused.code, what + ": " + refused.reason);
    }
    if (copier.report().copied.empty())
        return fail("files.not_found", what + ": no such file", ENOENT);
    return copier.report().copied.front();
}

Result<CopiedFile> importFile(const std::string &hostPath, const std::string &inputsDir,
                              const std::string &name, const CopyLimits &limits)
{
    const std::string what = "import " + ticked(shownPath(hostPath));
    if (const auto valid = validateName(name); !valid)
        return fail(valid.error().wrap(what));

    // stat() first so that a device or FIFO the user picked by mistake is refused without being opened; the
    // descriptor's fstat() below is the check that counts.
    struct stat st;
    if (::stat(hostPath.c_str(), &st) != 0)
        return failErrno(errno == ENOENT ? "files.not_found" : "files.unreadable", what, errno);
    if (const auto refusal = refusalForType(st.st_mode))
        return fail(refusal->code, what + ": " + refusal->reason);
    if (S_ISDIR(st.st_mode))
        return fail("files.not_regular", what + ": is a directory");
    UniqueFd sourceFd(::open(hostPath.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!sourceFd.isValid()) {
        const int error = errno;
        const Refusal refusal = refusalForOpenError(error);
        return fail(refusal.code, what + ": " + refusal.reason, error);
    }
    if (::fstat(sourceFd.get(), &st) != 0)
        return failErrno("files.unreadable", what, errno);
    if (!S_ISREG(st.st_mode))
        return fail("files.not_regular", what + ": changed while being read");
    const std::int64_t cap = std::min(limits.maxFileBytes, limits.maxTotalBytes);
    if (st.st_size > cap)
        return fail("files.too_large",
                    what + ": " + std::to_string(st.st_size) + " bytes; the limit is " + std::to_string(cap));

    // inputs/ is created by the engine and read-only inside the sandbox; still, no symlink is followed into
    // it.
    UniqueFd inputs = openNoSymlinks(inputsDir, O_RDONLY | O_DIRECTORY);
    if (!inputs.isValid())
        return failErrno(errno == ELOOP ? "files.symlink" : "files.destination",
                         what + ": open " + ticked(shownPath(inputsDir)), errno);
    struct stat existing;
    if (::fstatat(inputs.get(), name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0)
        return fail("files.exists",
                    what + ": " + ticked(escapeForDisplay(name)) + " already exists in the inputs", EEXIST);

    auto pending = PendingFile::create(inputs.get(), shownPath(inputsDir));
    if (!pending)
        return fail(pending.error().wrap(what));
    const auto copied = copyCapped(sourceFd.get(), pending->fd(), cap);
    if (!copied)
        return fail(copied.error().wrap(what));
    if (copied->exceededCap)
        return fail("files.too_large",
                    what + ": grew past the limit of " + std::to_string(cap) + " bytes while being copied");
    // The commit refuses to replace a name created since the check above.
    if (const auto committed = pending->commit(name, escapeForDisplay(name)); !committed)
        return fail(committed.error().wrap(what));
    return CopiedFile{name, copied->bytes, copied->sha256Hex};
}

const char *existingNameWord(ExistingName existing)
{
    switch (existing) {
    case ExistingName::Refuse:
        return "refuse";
    case ExistingName::Replace:
        return "replace";
    case ExistingName::KeepBoth:
        return "keep_both";
    }
    return "refuse";
}

std::optional<ExistingName> existingNameFromWord(std::string_view word)
{
    for (ExistingName existing : {ExistingName::Refuse, ExistingName::Replace, ExistingName::KeepBoth}) {
        if (word == existingNameWord(existing))
            return existing;
    }
    return word.empty() ? std::optional<ExistingName>(ExistingName::Refuse) : std::nullopt;
}

} // namespace Cordon::Files
