// SPDX-License-Identifier: MIT
// Chooses the backend once, from what this host mounts and what it lets this user write. The same evaluation
// feeds inspectHost(), so `cordon doctor` explains exactly the choice the engine makes.
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/cgroupfs.h"
#include "sandbox/cgroup/cgroupv1.h"
#include "sandbox/cgroup/cgroupv2.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

const std::vector<std::string> &needed()
{
    static const std::vector<std::string> controllers = {"memory", "pids"};
    return controllers;
}

struct HostFacts
{
    std::vector<MountEntry> mounts;
    std::vector<ProcCgroupEntry> self;
    std::string problem; // set when /proc could not be read; nothing else is then known
    uid_t uid = 0;
    bool selfDelegated = false; // SelfDelegatedVariable is 1: the engine's own cgroup was delegated to it
};

struct Candidate
{
    bool usable = false;
    bool memory = false;
    bool pids = false;
    bool writable = false;
    std::string base;
    std::string reason; // why it is not usable
    std::function<std::unique_ptr<CgroupBackend>()> make;
};

HostFacts readFacts()
{
    HostFacts facts;
    facts.uid = ::geteuid();
    const char *delegated = std::getenv(SelfDelegatedVariable);
    facts.selfDelegated = delegated && std::string_view(delegated) == "1";
    auto mountinfo = Fs::readFile("/proc/self/mountinfo");
    if (!mountinfo) {
        facts.problem = mountinfo.error().message();
        return facts;
    }
    facts.mounts = parseCgroupMounts(*mountinfo);
    auto self = Fs::readFile("/proc/self/cgroup");
    if (!self) {
        facts.problem = self.error().message();
        return facts;
    }
    auto entries = parseProcSelfCgroup(*self);
    if (!entries) {
        facts.problem = "parse `/proc/self/cgroup`: " + entries.error().message();
        return facts;
    }
    facts.self = std::move(*entries);
    return facts;
}

// The name of uid in /etc/passwd, else the number. Only a failure's advice needs it.
std::string passwdName(uid_t uid)
{
    const std::string number = std::to_string(uid);
    auto passwd = Fs::readFile("/etc/passwd");
    if (!passwd)
        return number;
    // name:password:uid:...
    const std::string_view text = *passwd;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        const size_t nameEnd = line.find(':');
        const size_t passwordEnd = nameEnd == std::string_view::npos ? nameEnd : line.find(':', nameEnd + 1);
        if (passwordEnd == std::string_view::npos || nameEnd == 0)
            continue;
        const size_t uidEnd = line.find(':', passwordEnd + 1);
        if (line.substr(passwordEnd + 1,
                        uidEnd == std::string_view::npos ? uidEnd : uidEnd - passwordEnd - 1) == number)
            return std::string(line.substr(0, nameEnd));
    }
    return number;
}

std::string join(const std::vector<std::string> &parts, std::string_view separator)
{
    std::string text;
    for (const std::string &part : parts) {
        if (!text.empty())
            text += separator;
        text += part;
    }
    return text;
}

// "the memory controller", "the memory and pids controllers"
std::string missingOf(const std::vector<std::string> &available)
{
    std::vector<std::string> missing;
    for (const std::string &controller : needed()) {
        if (!contains(available, controller))
            missing.push_back(controller);
    }
    return "the " + join(missing, " and ") + (missing.size() > 1 ? " controllers" : " controller");
}

bool hasAll(const std::vector<std::string> &available)
{
    return contains(available, needed()[0]) && contains(available, needed()[1]);
}

// Whether this user owns a delegated directory: the directory and the files systemd's Delegate=yes hands
// over.
bool ownedAndWritable(const std::string &dir, uid_t uid)
{
    return Fs::ownerOf(dir) == std::int64_t(uid) && Fs::writable(dir) &&
           Fs::writable(dir + "/cgroup.procs") && Fs::writable(dir + "/cgroup.subtree_control");
}

std::unique_ptr<CgroupBackend> makeV2(V2Layout layout)
{
    return std::make_unique<CgroupV2>(std::move(layout));
}

Candidate evaluateV2(const HostFacts &facts)
{
    Candidate c;
    const MountEntry *mount = hierarchyMount(facts.mounts, {});
    if (!mount) {
        c.reason = "no cgroup2 filesystem is mounted";
        return c;
    }
    auto rootControllers = Fs::readControllers(mount->mountPoint + "/cgroup.controllers");
    if (!rootControllers) {
        c.reason = rootControllers.error().message();
        return c;
    }
    c.memory = contains(*rootControllers, "memory");
    c.pids = contains(*rootControllers, "pids");
    if (!hasAll(*rootControllers)) {
        const bool boundToV1 = hierarchyMount(facts.mounts, "memory") != nullptr ||
                               hierarchyMount(facts.mounts, "pids") != nullptr;
        c.reason = "the cgroup2 hierarchy at " + Fs::ticked(mount->mountPoint) + " lacks " +
                   missingOf(*rootControllers) +
                   (boundToV1 ? " (this host binds them to cgroup v1 hierarchies)" : "");
        return c;
    }

    std::string selfPath;
    for (const ProcCgroupEntry &entry : facts.self) {
        if (entry.isUnified())
            selfPath = Fs::fsPathOf(*mount, entry.path);
    }
    const MountEntry mountCopy = *mount;

    if (facts.uid == 0) {
        // Root may write anywhere and move any process, so it gets its own base next to everyone's and stays
        // in its cgroup: leaving a system service's cgroup would hide the engine from its service manager.
        c.base = Fs::joinPath(mount->mountPoint, "cordon/uid-0");
        c.writable = Fs::writable(mount->mountPoint + "/cgroup.subtree_control");
        if (!c.writable) {
            c.reason = Fs::ticked(mount->mountPoint) + " is not writable (mounted read-only?)";
            return c;
        }
        c.usable = true;
        c.make = [layout = V2Layout{mountCopy, mount->mountPoint, c.base, false}] { return makeV2(layout); };
        return c;
    }

    std::vector<std::string> reasons;
    // A base made by `cordon cgroup-delegate`. The kernel lets a user move a process only below a common
    // ancestor whose cgroup.procs the user may write, so it is usable only by an engine that runs inside it
    // already or can reach it through such an ancestor.
    const std::string userBase = Fs::joinPath(mount->mountPoint, "cordon/uid-" + std::to_string(facts.uid));
    if (Fs::exists(userBase)) {
        auto controllers = Fs::readControllers(userBase + "/cgroup.controllers");
        const std::string ancestor =
            selfPath.empty() ? mount->mountPoint : Fs::commonAncestor(selfPath, userBase);
        if (!ownedAndWritable(userBase, facts.uid)) {
            reasons.push_back(Fs::ticked(userBase) + " is not delegated to you");
        } else if (!controllers || !hasAll(*controllers)) {
            reasons.push_back(Fs::ticked(userBase) + " lacks " +
                              missingOf(controllers ? *controllers : std::vector<std::string>()));
        } else if (!Fs::writable(ancestor + "/cgroup.procs")) {
            reasons.push_back(Fs::ticked(userBase) + " is yours, but Cordon runs in " + Fs::ticked(selfPath) +
                              " and the kernel only lets you move processes below a common ancestor you may "
                              "write (here " +
                              Fs::ticked(ancestor) + "); start Cordon inside " + Fs::ticked(userBase));
        } else {
            c.usable = c.writable = true;
            c.base = userBase;
            c.make = [layout = V2Layout{mountCopy, userBase, userBase, true}] { return makeV2(layout); };
            return c;
        }
    }

    // systemd's delegation: user@UID.service and the units below it belong to the user; containers go into
    // <root>/cordon.
    const std::string top = systemdDelegationRoot(
        mount->mountPoint, selfPath, facts.selfDelegated,
        [uid = facts.uid](const std::string &dir) { return ownedAndWritable(dir, uid); });
    if (top.empty() && facts.selfDelegated) {
        reasons.push_back(
            std::string(SelfDelegatedVariable) + "=1 says your cgroup " +
            Fs::ticked(selfPath.empty() ? std::string("?") : selfPath) +
            " was delegated to Cordon, but it is not yours to change (does the unit that starts "
            "Cordon set Delegate=yes?)");
    } else if (top.empty()) {
        reasons.push_back("your cgroup " + Fs::ticked(selfPath.empty() ? std::string("?") : selfPath) +
                          " is not delegated to you (systemd delegates user@" + std::to_string(facts.uid) +
                          ".service to each user; Cordon started from an ssh or console session runs outside "
                          "it)");
    } else {
        auto controllers = Fs::readControllers(top + "/cgroup.controllers");
        if (!controllers || !hasAll(*controllers)) {
            reasons.push_back("the subtree " + Fs::ticked(top) + " delegated to you lacks " +
                              missingOf(controllers ? *controllers : std::vector<std::string>()));
        } else {
            c.usable = c.writable = true;
            c.base = Fs::joinPath(top, "cordon");
            c.make = [layout = V2Layout{mountCopy, top, c.base, true}] { return makeV2(layout); };
            return c;
        }
    }
    c.reason = join(reasons, "; ");
    return c;
}

Candidate evaluateV1(const HostFacts &facts)
{
    Candidate c;
    const MountEntry *memory = hierarchyMount(facts.mounts, "memory");
    const MountEntry *pids = hierarchyMount(facts.mounts, "pids");
    c.memory = memory != nullptr;
    c.pids = pids != nullptr;
    if (!memory || !pids) {
        c.reason = std::string("no cgroup v1 ") +
                   (!memory && !pids ? "memory or pids"
                    : !memory        ? "memory"
                                     : "pids") +
                   " hierarchy is mounted";
        return c;
    }
    const std::string relative = "cordon/uid-" + std::to_string(facts.uid);
    std::string memoryBase = Fs::joinPath(memory->mountPoint, relative);
    std::string pidsBase = Fs::joinPath(pids->mountPoint, relative);
    c.base = memoryBase;
    const bool root = facts.uid == 0;
    if (root) {
        for (const std::string *mountPoint : {&memory->mountPoint, &pids->mountPoint}) {
            if (!Fs::writable(*mountPoint)) {
                c.reason = Fs::ticked(*mountPoint) + " is not writable (mounted read-only?)";
                return c;
            }
        }
    } else {
        for (const std::string *base : {&memoryBase, &pidsBase}) {
            const std::int64_t owner = Fs::ownerOf(*base);
            if (owner < 0) {
                c.reason = Fs::ticked(*base) + " does not exist";
                return c;
            }
            if (owner != std::int64_t(facts.uid) || !Fs::writable(*base)) {
                c.reason = Fs::ticked(*base) + " belongs to uid " + std::to_string(owner) + ", not to you";
                return c;
            }
        }
    }
    c.usable = c.writable = true;
    c.make = [memoryBase = std::move(memoryBase), pidsBase = std::move(pidsBase), root] {
        return std::unique_ptr<CgroupBackend>(std::make_unique<CgroupV1>(memoryBase, pidsBase, root));
    };
    return c;
}

std::string advice(uid_t uid, UserNameLookup userName)
{
    if (uid == 0)
        return {};
    return " Run `sudo cordon cgroup-delegate --user " + (userName ? userName(uid) : passwdName(uid)) +
           "` once to delegate a cgroup subtree.";
}

} // namespace

std::string systemdDelegationRoot(std::string_view mountPoint, std::string_view self, bool selfDelegated,
                                  const std::function<bool(const std::string &)> &owned)
{
    const std::string mountPrefix = std::string(mountPoint) + '/';
    if (!self.starts_with(mountPrefix))
        return {};
    // Only the unit's own cgroup: above it is the user manager's tree, which systemd's delegation rules
    // (docs/cgroups.md) keep for the user manager.
    if (selfDelegated)
        return owned(std::string(self)) ? std::string(self) : std::string();
    std::string top;
    for (std::string dir(self); dir.starts_with(mountPrefix); dir = Fs::parentOf(dir)) {
        if (!owned(dir))
            break;
        top = dir;
    }
    return top;
}

Result<std::unique_ptr<CgroupBackend>> detectBackend(UserNameLookup userName)
{
    const HostFacts facts = readFacts();
    if (!facts.problem.empty())
        return fail("cgroup.unavailable", "inspect cgroups: " + facts.problem);
    const Candidate v2 = evaluateV2(facts);
    if (v2.usable)
        return v2.make();
    const Candidate v1 = evaluateV1(facts);
    if (v1.usable)
        return v1.make();
    return fail("cgroup.unavailable", "no cgroup hierarchy can hold memory and pids limits for uid " +
                                          std::to_string(facts.uid) + ": cgroup v2: " + v2.reason +
                                          "; cgroup v1: " + v1.reason + "." + advice(facts.uid, userName));
}

HostReport inspectHost(UserNameLookup userName)
{
    HostReport report;
    const HostFacts facts = readFacts();
    if (!facts.problem.empty()) {
        report.explanation = "Cannot inspect cgroups: " + facts.problem;
        return report;
    }
    const Candidate v2 = evaluateV2(facts);
    const Candidate v1 = evaluateV1(facts);
    const Candidate &chosen = v2.usable ? v2 : v1;
    report.memoryController = v2.usable || v1.usable ? chosen.memory : v2.memory || v1.memory;
    report.pidsController = v2.usable || v1.usable ? chosen.pids : v2.pids || v1.pids;
    report.writable = chosen.writable && (v2.usable || v1.usable);
    if (v2.usable) {
        report.version = Version::V2;
        report.base = v2.base;
        report.explanation =
            "cgroup v2: containers get memory and pids limits under " + Fs::ticked(v2.base) + ".";
    } else if (v1.usable) {
        report.version = Version::V1;
        report.base = v1.base;
        report.explanation = "cgroup v1: containers get memory and pids limits under " + Fs::ticked(v1.base) +
                             " (and its pids twin); cgroup v2 is not used because " + v2.reason + ".";
    } else {
        report.explanation = "No memory or pids limits are possible for uid " + std::to_string(facts.uid) +
                             ": cgroup v2: " + v2.reason + "; cgroup v1: " + v1.reason + "." +
                             advice(facts.uid, userName);
    }
    return report;
}

} // namespace Cordon::Cgroup
