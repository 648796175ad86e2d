// SPDX-License-Identifier: MIT
// Copying files out of directories that untrusted code wrote into (a container's work/ and outputs/), and
// user files into a container's inputs/, following SECURITY.md section 3. Everything below a source root is
// reached by descriptor, one component at a time, and nothing the sandbox planted is ever followed: docker cp
// CVE-2018-15664, podman cp CVE-2019-10152 and the kubectl cp series were all a path re-resolved after a
// check. Host paths are bytes, as the kernel takes them; names and relative paths are UTF-8 (validateName()).
#pragma once

#include "sandbox/error.h"
#include "sandbox/uniquefd.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Files {

// Where a tree to read starts: a host path, which must not be or pass through a symlink (SECURITY.md
// section 3, step 2), or a directory the engine holds open with a relative path below it, opened one
// component at a time by openBeneath(): a running container's in-memory workspace, reached through the
// descriptor cordon-init handed back (the tmpfs is mounted only inside the container).
class SourceRoot final
{
public:
    // Implicit: every host path is a root as it is.
    SourceRoot(std::string hostPath) : m_path(std::move(hostPath)) {}
    SourceRoot(const char *hostPath) : m_path(hostPath) {}
    // `below` is '/'-separated and may be empty (the directory itself); `shown` names it in messages.
    SourceRoot(std::shared_ptr<const UniqueFd> directory, std::string below, std::string shown)
        : m_directory(std::move(directory)), m_path(std::move(below)), m_shown(std::move(shown))
    {}

    // Null for a host path.
    const std::shared_ptr<const UniqueFd> &directory() const { return m_directory; }
    // The host path, or the path below directory().
    const std::string &path() const { return m_path; }
    // For messages: the host path escaped, or the name given.
    std::string shown() const;
    // The root `relative` ('/'-separated, not empty) below this one.
    SourceRoot below(const std::string &relative) const;

private:
    std::shared_ptr<const UniqueFd> m_directory;
    std::string m_path;
    std::string m_shown;
};

// What a download does when the destination already has an entry of the file's name.
enum class ExistingName
{
    Refuse,   // files.exists: nothing is touched (the default)
    Replace,  // a regular file is replaced by one rename (`cordon cp --force`); a directory, symlink or
              // special file of that name never is (files.exists)
    KeepBoth, // the copy takes the first free name of "name (2).ext", "name (3).ext", ...: never a clash
};
// The protocol's words for them: refuse, replace, keep_both (file.download's `existing`, the export helper's
// request). An empty word is Refuse; any other is nullopt.
const char *existingNameWord(ExistingName existing);
std::optional<ExistingName> existingNameFromWord(std::string_view word);

// What a download's inspection decided for one file it copied (CopyLimits::inspect).
struct Inspection
{
    // Empty: the file is saved. Otherwise it is not, and `refused` lists it with this code and reason.
    std::string refusalCode = {};
    std::string refusalReason = {};
    // The inspection rewrote the pending copy (a redaction): the size and SHA-256 of what is saved.
    bool rewritten = false;
    std::int64_t size = 0;
    std::string sha256Hex = {};
    // Not empty: the file is saved under this name instead of its own (a name that holds a secret's value
    // is saved masked, so that the value is not in the user's folder).
    std::string savedName = {};
};

struct CopyLimits
{
    // Larger files are refused (files.too_large), never truncated.
    std::int64_t maxFileBytes = 16 * 1024 * 1024;
    // Nothing more is copied once a file would pass this (truncated); every file after it is still named in
    // `refused` (files.too_large), so that a report never leaves a file out silently. Sizes are apparent
    // sizes: a sparse file counts as what it would become on disk.
    std::int64_t maxTotalBytes = 256 * 1024 * 1024;
    // Directory entries examined, of any kind, directories included; the copy stops (truncated) past this.
    int maxEntries = 10000;
    // Entries that are mount points are left out without a refusal: the whole in-memory workspace has its
    // inputs/ and outputs/ mounted on it, which have scopes of their own.
    bool skipMountPoints = false;
    // Path components below the root; at most MaxSupportedDepth, because each level holds a descriptor.
    int maxDepth = 32;
    // Not a limit but how names meet: downloads only. See ExistingName.
    ExistingName existingNames = ExistingName::Refuse;
    // Downloads only: called with each complete copy before it gets its name, with the copy's descriptor
    // (open for reading and writing, a file nobody else holds, so what it reads is what will be saved) and
    // the source's relative path. It may refuse the file or rewrite the copy. The artifact scan.
    std::function<Inspection(int fd, const std::string &relativePath)> inspect = {};
    // Downloads only: the name a directory is made under in the destination, or empty for its own. The
    // artifact scan masks a directory named after a secret's value, as it does a file
    // (Inspection::savedName).
    std::function<std::string(const std::string &relativePath)> directoryName = {};
    // Listings only: called with each listed file's descriptor (open for reading; the file is the
    // container's, so what is read may change) and its relative path, after its hash was taken. The
    // artifact scan's look before anything is downloaded.
    std::function<void(int fd, const std::string &relativePath)> examine = {};
};

constexpr int MaxSupportedDepth = 256;

struct CopiedFile
{
    // The real name, '/'-separated (valid UTF-8: validateName() passed); still escape it for display.
    std::string relativePath;
    std::int64_t size = 0;
    std::string sha256Hex; // lower-case
    // Where the copy went, relative to the destination directory, '/'-separated; differs from the source's
    // name only under ExistingName::KeepBoth (and for a single file, which lands at the top). Empty for
    // listings and imports.
    std::string savedAs = {};
};

struct RefusedEntry
{
    std::string relativePath; // escaped for display (escapeForDisplay() per component)
    // files.symlink, files.hardlink, files.fifo, files.socket, files.device, files.bad_name, files.too_large,
    // files.too_deep, files.too_many, files.not_regular (other types, mount points, changed while read),
    // files.unreadable (permission or I/O error on the source), files.exists (the destination has that name)
    std::string code;
    std::string reason;
};

struct CopyReport
{
    std::vector<CopiedFile> copied;
    std::vector<RefusedEntry> refused;
    std::int64_t totalBytes = 0;
    // maxTotalBytes stopped the copying (the files not copied are in `refused`), or maxEntries stopped the
    // walk (a files.too_many refusal says where; entries past it were not examined).
    bool truncated = false;
};

// Copies every regular file below `sourceRoot` into `destinationDir`, recreating subdirectories (mode 0755
// before the umask, files 0644 before the umask, nothing else carried over: setuid bits, owner, xattrs, ACLs
// and capabilities stay behind). `sourceRoot` must not be or pass through a symlink (files.symlink); the
// caller passes a canonical engine data path. `destinationDir` is the user's choice and is opened normally;
// it must exist and be a directory; names it already holds are refused (files.exists), never replaced. A file
// appears under its final name only when completely copied. Refused entries are reported, not fatal. Fatal:
// files.symlink, files.not_found, files.not_directory, files.unreadable for the root, files.destination.
Result<CopyReport> exportTree(const SourceRoot &sourceRoot, const std::string &destinationDir,
                              const CopyLimits &limits = {});

// One file `relativePath` ('/'-separated, every component passing validateName()) below `sourceRoot`, same
// rules; a refusal is the error (its code as above). `destinationPath` is created and must not exist
// (files.exists).
Result<CopiedFile> exportFile(const SourceRoot &sourceRoot, const std::string &relativePath,
                              const std::string &destinationPath, const CopyLimits &limits = {});

// Copies a file the user chose into `inputsDir` as `name` (validateName()). `hostPath` is opened like any
// path the user types: symlinks in it are followed, because the user named it and the sandbox cannot write
// there. It must be a regular file (devices, FIFOs and sockets are refused without blocking) no larger than
// maxFileBytes; `inputsDir` must not pass through a symlink; an existing `name` is files.exists.
Result<CopiedFile> importFile(const std::string &hostPath, const std::string &inputsDir,
                              const std::string &name, const CopyLimits &limits = {});

// Removes the entry `relativePath` below `root` with everything below it (removeEntry(): nothing followed, no
// mount point crossed). Intermediate directories are opened like a source root's. files.not_found when there
// is no such entry; the errors of openSourceRoot() and removeEntry() otherwise.
Result<> removeBelow(const SourceRoot &root, const std::string &relativePath);

// What exportTree() would copy, with sizes and SHA-256, by the same rules, writing nothing
// (for `cordon files list`).
Result<CopyReport> listTree(const SourceRoot &root, const CopyLimits &limits = {});

} // namespace Cordon::Files
