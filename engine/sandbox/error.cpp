// SPDX-License-Identifier: MIT
#include "sandbox/error.h"

#include <clocale>
#include <cstring>
#include <locale.h>

namespace Cordon {

namespace {

struct HintEntry
{
    const char *codePrefix;
    const char *hint;
};

// One table of advice, matched by code prefix (longest entries first where they overlap).
constexpr HintEntry Hints[] = {
    {"cgroup.unavailable",
     "Run `sudo cordon cgroup-delegate --user $USER` once, or pass --allow-degraded to run without memory "
     "and pids limits."},
    {"cgroup.permission",
     "The cgroup subtree is not delegated to this user: run `sudo cordon cgroup-delegate --user $USER`."},
    {"userns.unavailable",
     "Unprivileged user namespaces are disabled: set kernel.unprivileged_userns_clone=1 (sysctl) or raise "
     "user.max_user_namespaces."},
    {"seccomp.unavailable", "The kernel needs CONFIG_SECCOMP and CONFIG_SECCOMP_FILTER."},
    {"policy.", "See docs/policy.md for every field, its type and its bounds."},
    {"store.corrupt",
     "The history database is damaged: move history.db (in the data directory) aside to start a "
     "new history."},
    {"store.migration",
     "The history database was written by a newer Cordon: upgrade, or move history.db aside."},
    {"store.busy", "Another process holds the history database: is a second cordond running?"},
    {"daemon.unreachable",
     "Start it with `cordon daemon start`, or check `cordond` is installed beside `cordon`."},
    {"network.domain_not_allowed",
     "Add the domain to the organisation allowlist file that `cordon network org` names (the daemon applies "
     "it as soon as the file is saved; no restart or --reload is needed), or in the workbench under "
     "Settings, "
     "or remove it from the container's list."},
    {"network.org_policy_unreadable",
     "Fix or remove the organisation allowlist file named above; an administrator's file is never skipped."},
    {"network.org_policy_administered",
     "Your administrator's file governs the organisation allowlist; ask them to change it."},
    {"network.org_policy_unwritable",
     "Check that the folder named above exists and that you may write to it."},
    {"network.restart_required", "Stop the container, change its policy, and start it again."},
    {"file.not_found", "`cordon files ID` lists what is there; --scope picks inputs, outputs or workspace."},
    {"container.gone",
     "Create a new one (`cordon create`); `cordon history --container ID` still shows the runs it had."},
    {"container.name_taken",
     "Choose another --name (or give none and one is chosen for you), or delete the container that has it "
     "(`cordon rm NAME`)."},
    {"container.limit",
     "Stop or delete a container (`cordon ls`, `cordon rm ID`), or start cordond with a higher "
     "--max-containers."},
    {"run.timeout", "Raise limits.run_timeout_s in the policy, or --timeout on the command line."},
    {"run.oom", "Choose a larger memory tier (--memory 4g) or make the program use less memory."},
    {"secrets.store_unsafe",
     "The store must be a regular file of yours with mode 0600 (chmod 600 it); if others could read it, set "
     "its secrets anew at their source."},
    {"secrets.store_corrupt", "Move the file aside and set the secrets again with `cordon secret set NAME`."},
    {"secrets.keyring_unavailable",
     "The secret store keeps its values in the desktop keyring: start the daemon in the desktop session that "
     "unlocks it (where DBUS_SESSION_BUS_ADDRESS reaches it)."},
    {"secrets.no_libsecret",
     "Install libsecret-1-0 (`apt install libsecret-1-0`), then restart the daemon (`cordon daemon stop`; "
     "the next command starts it)."},
    {"crypto.no_libcrypto",
     "Install libssl3 (`apt install libssl3`), then restart the daemon (`cordon daemon stop`; the next "
     "command starts it)."},
    {"secrets.keyring_locked",
     "Unlock the keyring (log in to the desktop, or open it in Passwords and Keys), then try again; Cordon "
     "never asks for its password."},
};

} // namespace

std::string errnoText(int sysErrno)
{
    // Loading a locale opens some 40 files; a program that calls setlocale(LC_ALL, "") at start (every Qt
    // program) pays that on every start, the launcher only on the way to an error message. uselocale() makes
    // both the catalogue and the character set the user's for this one call.
    static const locale_t user = ::newlocale(LC_MESSAGES_MASK | LC_CTYPE_MASK, "", static_cast<locale_t>(0));
    if (user == static_cast<locale_t>(0))
        return std::strerror(sysErrno);
    const locale_t previous = ::uselocale(user);
    std::string text = std::strerror(sysErrno);
    ::uselocale(previous);
    return text;
}

Error Error::fromErrno(std::string code, std::string_view what, int sysErrno)
{
    return Error(std::move(code), std::string(what) + ": " + errnoText(sysErrno), sysErrno);
}

Error Error::wrap(std::string_view context) const
{
    return Error(m_code, std::string(context) + ": " + m_message, m_errno);
}

std::string_view Error::hint() const
{
    return hintFor(m_code);
}

std::string Error::describe() const
{
    const std::string_view advice = hint();
    return advice.empty() ? m_message : m_message + "\nhint: " + std::string(advice);
}

std::string ticked(std::string_view path)
{
    std::string text;
    text.reserve(path.size() + 2);
    text += '`';
    text += path;
    text += '`';
    return text;
}

std::string_view hintFor(std::string_view code)
{
    for (const HintEntry &entry : Hints) {
        if (code.starts_with(entry.codePrefix))
            return entry.hint;
    }
    return {};
}

} // namespace Cordon
