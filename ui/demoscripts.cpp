// SPDX-License-Identifier: MIT
#include "demoscripts.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace Cordon::Ui {

QString DemoScript::code() const
{
    QFile file(QStringLiteral(":/demos/%1.py").arg(id));
    if (!file.open(QIODevice::ReadOnly))
        return {}; // cannot happen for the ids below: the resources are compiled in (tst_demomode checks)
    // The forbidden-files demo looks for the user's real files: the paths they have on this host, not paths
    // inside the sandbox, which would prove nothing. JSON quoting is a valid Python string literal.
    QString code = QString::fromUtf8(file.readAll());
    const QByteArray home = QJsonDocument(QJsonArray{QDir::homePath()}).toJson(QJsonDocument::Compact);
    code.replace(QStringLiteral("\"@HOST_HOME@\""), QString::fromUtf8(home.mid(1, home.size() - 2)));
    return code;
}

QList<DemoScript> DemoScripts::all()
{
    const QString python = QStringLiteral("python");
    return {
        {QStringLiteral("memory-bomb"), tr("Memory Bomb"),
         tr("Allocates memory until the container's limit: the kernel kills it, the banner says oom and the "
            "chart marks the kill."),
         python},
        {QStringLiteral("fork-bomb"), tr("Fork Bomb"),
         tr("Starts processes as fast as it can: the pids limit makes the kernel refuse the next one."),
         python},
        {QStringLiteral("network-probe"), tr("Network Probe"),
         tr("Tries a name lookup, a direct connection and the proxy, and tells \"denied by policy\" from "
            "\"allowed, but the upstream failed\"."),
         python},
        {QStringLiteral("forbidden-file"), tr("Forbidden Files"),
         tr("Looks for your real files by their host paths and writes to the system: none of it is there or "
            "writable."),
         python},
        {QStringLiteral("write-artifact"), tr("Write an Artifact"),
         tr("Writes a CSV and a chart into outputs/: see them in the Files tab, preview and download them."),
         python},
    };
}

bool DemoScripts::isDemoCode(const QString &code)
{
    const QList<DemoScript> scripts = all();
    return std::any_of(scripts.cbegin(), scripts.cend(),
                       [&code](const DemoScript &script) { return script.code() == code; });
}

} // namespace Cordon::Ui
