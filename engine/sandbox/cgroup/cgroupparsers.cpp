// SPDX-License-Identifier: MIT
#include "sandbox/cgroup/cgroupparsers.h"

#include "sandbox/quoteuntrusted.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace Cordon::Cgroup {

namespace {

// v1 shows "no limit" as the page counter's maximum times the page size: LLONG_MAX rounded down to a page
// (9223372036854771712 with 4 KiB pages, 9223372036854710272 with 64 KiB pages). Anything this close to
// LLONG_MAX can only be that, whatever the page size.
constexpr std::int64_t V1UnlimitedFloor = std::numeric_limits<std::int64_t>::max() - (std::int64_t(1) << 20);

// Super options of a v1 cgroup mount that are flags, not controllers (see cgroup1_show_options()).
bool isV1MountFlag(std::string_view option)
{
    constexpr std::string_view Flags[] = {
        "rw", "ro", "noprefix", "xattr", "clone_children", "cpuset_v2_mode", "favordynmods", "none"};
    return option.find('=') != std::string_view::npos ||
           std::find(std::begin(Flags), std::end(Flags), option) != std::end(Flags);
}

// mountinfo escapes space, tab, newline and backslash as three octal digits (\040).
std::string decodeMountField(std::string_view field)
{
    std::string out;
    out.reserve(field.size());
    for (size_t i = 0; i < field.size(); ++i) {
        const char c = field[i];
        if (c == '\\' && i + 3 < field.size()) {
            const char a = field[i + 1], b = field[i + 2], d = field[i + 3];
            if (a >= '0' && a <= '3' && b >= '0' && b <= '7' && d >= '0' && d <= '7') {
                out.push_back(char((a - '0') * 64 + (b - '0') * 8 + (d - '0')));
                i += 3;
                continue;
            }
        }
        out.push_back(c);
    }
    return out;
}

// Calls visit(part) for each separator-delimited part, empty ones included, like QByteArray::split().
template<typename Visit> void forEachPart(std::string_view data, char separator, Visit visit)
{
    size_t start = 0;
    for (;;) {
        const size_t end = data.find(separator, start);
        if (end == std::string_view::npos) {
            visit(data.substr(start));
            return;
        }
        visit(data.substr(start, end - start));
        start = end + 1;
    }
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

std::vector<std::string_view> splitWhitespace(std::string_view line)
{
    std::vector<std::string_view> parts;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isBlank(line[i]))
            ++i;
        const size_t start = i;
        while (i < line.size() && !isBlank(line[i]))
            ++i;
        if (i > start)
            parts.push_back(line.substr(start, i - start));
    }
    return parts;
}

// The characters QByteArray::trimmed() removes.
bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

bool isDigits(std::string_view text)
{
    if (text.empty())
        return false;
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string atLine(int lineNumber, std::string_view line, std::string_view problem)
{
    return "line " + std::to_string(lineNumber) + ' ' + quoteUntrusted(line) + ": " + std::string(problem);
}

} // namespace

std::optional<std::int64_t> parseInteger(std::string_view text)
{
    // from_chars takes '-' but not '+'; the kernel writes neither, Qt's toLongLong() took both.
    if (text.size() > 1 && text.front() == '+' && text[1] >= '0' && text[1] <= '9')
        text.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

bool contains(const std::vector<std::string> &names, std::string_view name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

Result<std::vector<ProcCgroupEntry>> parseProcSelfCgroup(std::string_view data)
{
    std::vector<ProcCgroupEntry> entries;
    int lineNumber = 0;
    std::optional<Error> failure;
    forEachPart(data, '\n', [&](std::string_view line) {
        ++lineNumber;
        if (failure || line.empty())
            return;
        // The path is everything after the second colon: a cgroup name may itself contain colons.
        const size_t first = line.find(':');
        const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos) {
            failure = Error{"cgroup.io", atLine(lineNumber, line, "expected `id:controllers:/path`")};
            return;
        }
        const std::string_view id = line.substr(0, first);
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        const std::string_view path = line.substr(second + 1);
        if (!isDigits(id) || id.size() > 9) {
            failure = Error{"cgroup.io", atLine(lineNumber, line, "hierarchy id is not a number")};
            return;
        }
        if (!path.starts_with('/')) {
            failure = Error{"cgroup.io", atLine(lineNumber, line, "path is not absolute")};
            return;
        }
        ProcCgroupEntry entry;
        entry.hierarchyId = int(*parseInteger(id));
        forEachPart(controllers, ',', [&entry](std::string_view controller) {
            if (!controller.empty())
                entry.controllers.emplace_back(controller);
        });
        entry.path = path;
        entries.push_back(std::move(entry));
    });
    if (failure)
        return fail(std::move(*failure));
    return entries;
}

std::vector<MountEntry> parseCgroupMounts(std::string_view mountinfo)
{
    std::vector<MountEntry> mounts;
    forEachPart(mountinfo, '\n', [&mounts](std::string_view line) {
        // id parent major:minor root mountpoint options [optional fields...] - fstype source superoptions
        const std::vector<std::string_view> fields = splitWhitespace(line);
        size_t separator = 0;
        for (size_t i = 6; i < fields.size(); ++i) {
            if (fields[i] == "-") {
                separator = i;
                break;
            }
        }
        if (separator == 0 || separator + 3 >= fields.size())
            return;
        const std::string_view fsType = fields[separator + 1];
        if (fsType != "cgroup" && fsType != "cgroup2")
            return;
        MountEntry entry;
        entry.root = decodeMountField(fields[3]);
        entry.mountPoint = decodeMountField(fields[4]);
        entry.unified = fsType == "cgroup2";
        forEachPart(fields[separator + 3], ',', [&entry](std::string_view option) {
            if (option.empty())
                return;
            entry.options.emplace_back(option);
            if (!entry.unified && !isV1MountFlag(option))
                entry.controllers.emplace_back(option);
        });
        mounts.push_back(std::move(entry));
    });
    return mounts;
}

FlatKeyed parseFlatKeyed(std::string_view data)
{
    FlatKeyed values;
    forEachPart(data, '\n', [&values](std::string_view line) {
        const std::vector<std::string_view> fields = splitWhitespace(line);
        if (fields.size() != 2)
            return;
        if (const auto value = parseInteger(fields[1]))
            values.insert_or_assign(std::string(fields[0]), *value);
    });
    return values;
}

Result<std::int64_t> parseLimitValue(std::string_view data)
{
    const std::string_view text = trimmed(data);
    if (text == "max" || text == "-1")
        return std::int64_t(-1);
    if (!isDigits(text))
        return fail("cgroup.io", quoteUntrusted(text) + " is neither `max` nor a non-negative integer");
    const auto value = parseInteger(text);
    if (!value)
        return fail("cgroup.io", quoteUntrusted(text) + " is out of range");
    return *value >= V1UnlimitedFloor ? std::int64_t(-1) : *value;
}

std::vector<std::string> parseControllerList(std::string_view data)
{
    std::vector<std::string> controllers;
    for (std::string_view name : splitWhitespace(trimmed(data)))
        controllers.emplace_back(name);
    return controllers;
}

const MountEntry *hierarchyMount(const std::vector<MountEntry> &mounts, std::string_view controller)
{
    const bool unified = controller.empty();
    const MountEntry *found = nullptr;
    for (const MountEntry &mount : mounts) {
        if (mount.unified != unified || (!unified && !contains(mount.controllers, controller)))
            continue;
        if (mount.root == "/")
            return &mount;
        if (!found)
            found = &mount;
    }
    return found;
}

} // namespace Cordon::Cgroup
