// SPDX-License-Identifier: MIT
#include "cgroup/cgroupparsers.h"

#include <limits>

namespace Cordon::Cgroup {

namespace {

// v1 shows "no limit" as the page counter's maximum times the page size: LLONG_MAX rounded down to a page
// (9223372036854771712 with 4 KiB pages, 9223372036854710272 with 64 KiB pages). Anything this close to
// LLONG_MAX can only be that, whatever the page size.
constexpr qint64 V1UnlimitedFloor = std::numeric_limits<qint64>::max() - (qint64(1) << 20);

// Super options of a v1 cgroup mount that are flags, not controllers (see cgroup1_show_options()).
bool isV1MountFlag(const QString &option)
{
    static const QStringList flags = {QStringLiteral("rw"),
                                      QStringLiteral("ro"),
                                      QStringLiteral("noprefix"),
                                      QStringLiteral("xattr"),
                                      QStringLiteral("clone_children"),
                                      QStringLiteral("cpuset_v2_mode"),
                                      QStringLiteral("favordynmods"),
                                      QStringLiteral("none")};
    return option.contains(QLatin1Char('=')) || flags.contains(option);
}

// mountinfo escapes space, tab, newline and backslash as three octal digits (\040).
QString decodeMountField(QByteArrayView field)
{
    QByteArray out;
    out.reserve(field.size());
    for (qsizetype i = 0; i < field.size(); ++i) {
        const char c = field[i];
        if (c == '\\' && i + 3 < field.size()) {
            const char a = field[i + 1], b = field[i + 2], d = field[i + 3];
            if (a >= '0' && a <= '3' && b >= '0' && b <= '7' && d >= '0' && d <= '7') {
                out.append(char((a - '0') * 64 + (b - '0') * 8 + (d - '0')));
                i += 3;
                continue;
            }
        }
        out.append(c);
    }
    return QString::fromUtf8(out);
}

QList<QByteArrayView> splitView(QByteArrayView data, char separator)
{
    QList<QByteArrayView> parts;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= data.size(); ++i) {
        if (i == data.size() || data[i] == separator) {
            parts.append(data.sliced(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

QList<QByteArrayView> splitWhitespace(QByteArrayView line)
{
    QList<QByteArrayView> parts;
    qsizetype i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const qsizetype start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            parts.append(line.sliced(start, i - start));
    }
    return parts;
}

bool isDigits(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
}

QString quoted(QByteArrayView line)
{
    constexpr qsizetype MaxShown = 80;
    const QString text = QString::fromUtf8(line.first(qMin(line.size(), MaxShown)));
    return QStringLiteral("`") + text +
           (line.size() > MaxShown ? QStringLiteral("...`") : QStringLiteral("`"));
}

} // namespace

Result<QList<ProcCgroupEntry>> parseProcSelfCgroup(QByteArrayView data)
{
    QList<ProcCgroupEntry> entries;
    int lineNumber = 0;
    for (QByteArrayView line : splitView(data, '\n')) {
        ++lineNumber;
        if (line.isEmpty())
            continue;
        // The path is everything after the second colon: a cgroup name may itself contain colons.
        const qsizetype first = line.indexOf(':');
        const qsizetype second = first < 0 ? -1 : line.sliced(first + 1).indexOf(':');
        if (second < 0)
            return fail(QStringLiteral("cgroup.io"),
                        QStringLiteral("line %1 %2: expected `id:controllers:/path`")
                            .arg(lineNumber)
                            .arg(quoted(line)));
        const QByteArrayView id = line.first(first);
        const QByteArrayView controllers = line.sliced(first + 1, second);
        const QByteArrayView path = line.sliced(first + 1 + second + 1);
        if (!isDigits(id) || id.size() > 9)
            return fail(
                QStringLiteral("cgroup.io"),
                QStringLiteral("line %1 %2: hierarchy id is not a number").arg(lineNumber).arg(quoted(line)));
        if (!path.startsWith('/'))
            return fail(QStringLiteral("cgroup.io"),
                        QStringLiteral("line %1 %2: path is not absolute").arg(lineNumber).arg(quoted(line)));
        ProcCgroupEntry entry;
        entry.hierarchyId = id.toInt();
        for (QByteArrayView controller : splitView(controllers, ',')) {
            if (!controller.isEmpty())
                entry.controllers.append(QString::fromUtf8(controller));
        }
        entry.path = QString::fromUtf8(path);
        entries.append(entry);
    }
    return entries;
}

QList<MountEntry> parseCgroupMounts(QByteArrayView mountinfo)
{
    QList<MountEntry> mounts;
    for (QByteArrayView line : splitView(mountinfo, '\n')) {
        // id parent major:minor root mountpoint options [optional fields...] - fstype source superoptions
        const QList<QByteArrayView> fields = splitWhitespace(line);
        qsizetype separator = -1;
        for (qsizetype i = 6; i < fields.size(); ++i) {
            if (fields[i] == "-") {
                separator = i;
                break;
            }
        }
        if (separator < 0 || separator + 3 >= fields.size())
            continue;
        const QByteArrayView fsType = fields[separator + 1];
        if (fsType != "cgroup" && fsType != "cgroup2")
            continue;
        MountEntry entry;
        entry.root = decodeMountField(fields[3]);
        entry.mountPoint = decodeMountField(fields[4]);
        entry.unified = fsType == "cgroup2";
        for (QByteArrayView option : splitView(fields[separator + 3], ',')) {
            if (option.isEmpty())
                continue;
            const QString text = QString::fromUtf8(option);
            entry.options.append(text);
            if (!entry.unified && !isV1MountFlag(text))
                entry.controllers.append(text);
        }
        mounts.append(entry);
    }
    return mounts;
}

QHash<QByteArray, qint64> parseFlatKeyed(QByteArrayView data)
{
    QHash<QByteArray, qint64> values;
    for (QByteArrayView line : splitView(data, '\n')) {
        const QList<QByteArrayView> fields = splitWhitespace(line);
        if (fields.size() != 2)
            continue;
        bool ok = false;
        const qint64 value = fields[1].toLongLong(&ok);
        if (ok)
            values.insert(fields[0].toByteArray(), value);
    }
    return values;
}

Result<qint64> parseLimitValue(QByteArrayView data)
{
    const QByteArrayView text = data.trimmed();
    if (text == "max" || text == "-1")
        return qint64(-1);
    if (!isDigits(text))
        return fail(QStringLiteral("cgroup.io"),
                    QStringLiteral("%1 is neither `max` nor a non-negative integer").arg(quoted(text)));
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok)
        return fail(QStringLiteral("cgroup.io"), QStringLiteral("%1 is out of range").arg(quoted(text)));
    return value >= V1UnlimitedFloor ? qint64(-1) : value;
}

QStringList parseControllerList(QByteArrayView data)
{
    QStringList controllers;
    for (QByteArrayView name : splitWhitespace(data.trimmed()))
        controllers.append(QString::fromUtf8(name));
    return controllers;
}

} // namespace Cordon::Cgroup
