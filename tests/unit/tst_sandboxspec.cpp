// SPDX-License-Identifier: MIT
// The mount plan is data, so what a container sees can be checked without starting one. Plans are built as
// every container start builds them: the plan's input for the policy (OneShot::mountPlanInput), and
// buildMountPlan().
#include "containers/oneshotrun.h"
#include "core/plainbridge.h"
#include "sandbox/duration.h"
#include "sandbox/initlaunch.h"
#include "sandbox/workspace.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/mount.h>

using namespace Cordon::Isolation;

namespace {

// The plan, with its bind sources as Qt strings for comparisons.
struct Plan
{
    SetupRequest setup;
    QStringList bindSources;
};

Cordon::Result<Plan> buildPlan(const Cordon::Policy::ContainerPolicy &policy,
                               const Cordon::Containers::WorkspacePaths &workspace, const IdMapping &ids,
                               const QString &hostRoot = QStringLiteral("/"))
{
    MountPlanInput input = Cordon::Containers::OneShot::mountPlanInput(policy);
    input.workspace = {workspace.work, workspace.inputs, workspace.outputs, workspace.code};
    input.insideUid = ids.insideUid;
    input.insideGid = ids.insideGid;
    input.hostRoot = QFile::encodeName(hostRoot).toStdString();
    auto setup = buildMountPlan(input);
    if (!setup)
        return Cordon::fail(Cordon::Error(setup.error()));
    Plan plan{std::move(*setup), {}};
    for (const std::string &source : plan.setup.bindSources)
        plan.bindSources.append(QFile::decodeName(QByteArray::fromStdString(source)));
    return plan;
}

const MountOp *findOp(const Plan &spec, const std::string &target, MountOpKind kind)
{
    for (const MountOp &op : spec.setup.mounts) {
        if (op.target == target && op.kind == kind)
            return &op;
    }
    return nullptr;
}

} // namespace

class TestSandboxSpec final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_host;
    Cordon::Containers::WorkspacePaths m_workspace;

    Cordon::Result<Plan> build(const Cordon::Policy::ContainerPolicy &policy = {})
    {
        return buildPlan(policy, m_workspace, idMappingFor(1000, 1000), m_host.path());
    }

private Q_SLOTS:
    void initTestCase()
    {
        // A fake merged-/usr host: /usr a directory, /bin and /lib symlinks into it, a secret in /etc.
        QDir root(m_host.path());
        QVERIFY(root.mkpath(QStringLiteral("usr/bin")));
        QVERIFY(root.mkpath(QStringLiteral("usr/lib")));
        QVERIFY(root.mkpath(QStringLiteral("etc/ssl")));
        QVERIFY(root.mkpath(QStringLiteral("dev")));
        QVERIFY(QFile::link(QStringLiteral("usr/bin"), m_host.filePath(QStringLiteral("bin"))));
        QVERIFY(QFile::link(QStringLiteral("usr/lib"), m_host.filePath(QStringLiteral("lib"))));
        QFile shadow(m_host.filePath(QStringLiteral("etc/shadow")));
        QVERIFY(shadow.open(QIODevice::WriteOnly));
        m_workspace = {"/data/w", "/data/i", "/data/o", ""};
    }

    void systemDirectoriesAreReadOnlyBinds()
    {
        auto spec = build();
        QVERIFY_RESULT(spec);
        const MountOp *usr = findOp(*spec, "/usr", MountOpKind::BindFd);
        QVERIFY(usr);
        QCOMPARE(usr->flags & (MS_RDONLY | MS_NOSUID | MS_NODEV),
                 std::uint64_t(MS_RDONLY | MS_NOSUID | MS_NODEV));
        QCOMPARE(spec->bindSources.at(usr->fdIndex), m_host.filePath(QStringLiteral("usr")));
    }

    void hostSymlinksBecomeSymlinksNotBinds()
    {
        auto spec = build();
        QVERIFY_RESULT(spec);
        const MountOp *bin = findOp(*spec, "/bin", MountOpKind::Symlink);
        QVERIFY(bin);
        QCOMPARE(bin->contents, std::string("usr/bin"));
        QVERIFY(!findOp(*spec, "/bin", MountOpKind::BindFd));
        QVERIFY(!findOp(*spec, "/lib64", MountOpKind::BindFd)); // absent on this fake host: skipped
    }

    void secretsAreNeverShared()
    {
        auto spec = build();
        QVERIFY_RESULT(spec);
        for (const QString &source : spec->bindSources) {
            QVERIFY2(!source.endsWith(QLatin1String("/shadow")), qPrintable(source));
            QVERIFY2(!source.contains(QLatin1String("/home")) && !source.contains(QLatin1String("/root")),
                     qPrintable(source));
        }
        QVERIFY(findOp(*spec, "/etc/ssl", MountOpKind::BindFd));
        const MountOp *passwd = findOp(*spec, "/etc/passwd", MountOpKind::File);
        QVERIFY(passwd);
        QVERIFY(passwd->contents.find("sandbox:x:1000:1000") != std::string::npos);
        const MountOp *resolv = findOp(*spec, "/etc/resolv.conf", MountOpKind::File);
        QVERIFY(resolv);
        QVERIFY(resolv->contents.find("nameserver") == std::string::npos);
    }

    void workspaceMountsHaveTheRightFlags()
    {
        auto spec = build();
        QVERIFY_RESULT(spec);
        // The workspace is a tmpfs of workspace_mb (the kernel enforces the quota), filled from the host's
        // saved copy, with outputs/ bound again without exec and inputs/ read-only from the host.
        const MountOp *work = findOp(*spec, "/mnt/data", MountOpKind::Tmpfs);
        const MountOp *inputs = findOp(*spec, "/mnt/data/inputs", MountOpKind::BindFd);
        const MountOp *outputs = findOp(*spec, "/mnt/data/outputs", MountOpKind::SelfBind);
        QVERIFY(work && inputs && outputs);
        QVERIFY2(work->contents.find("size=512m") != std::string::npos, work->contents.c_str());
        QVERIFY2(work->contents.find("nr_inodes=131072") != std::string::npos, work->contents.c_str());
        QCOMPARE(work->flags & MS_RDONLY, std::uint64_t(0));
        const MountOp *restoreWork = findOp(*spec, "/mnt/data", MountOpKind::Restore);
        const MountOp *restoreOutputs = findOp(*spec, "/mnt/data/outputs", MountOpKind::Restore);
        QVERIFY(restoreWork && restoreOutputs);
        QCOMPARE(spec->setup.bindSources.at(std::size_t(restoreWork->fdIndex)), std::string("/data/w"));
        QCOMPARE(spec->setup.bindSources.at(std::size_t(restoreOutputs->fdIndex)), std::string("/data/o"));
        // In this order: the tmpfs, what was saved, then the mounts on top of it.
        const auto position = [&](const MountOp *op) { return op - spec->setup.mounts.data(); };
        QVERIFY(position(work) < position(restoreWork));
        QVERIFY(position(restoreWork) < position(restoreOutputs));
        QVERIFY(position(restoreOutputs) < position(outputs));
        QVERIFY(position(restoreOutputs) < position(inputs));
        QCOMPARE(spec->setup.handBack, (std::vector<std::string>{"/mnt/data", "/mnt/data/outputs"}));
        QVERIFY(inputs->flags & MS_RDONLY);
        QVERIFY(outputs->flags & MS_NOEXEC);
        QVERIFY(!(outputs->flags & MS_RDONLY));
        for (const MountOp *op : {work, inputs, outputs})
            QVERIFY((op->flags & (MS_NOSUID | MS_NODEV)) == (MS_NOSUID | MS_NODEV));
        QCOMPARE(spec->bindSources.at(inputs->fdIndex), QStringLiteral("/data/i"));
    }

    void procIsFreshAndMasked()
    {
        auto spec = build();
        QVERIFY_RESULT(spec);
        QVERIFY(findOp(*spec, "/proc", MountOpKind::Proc));
        QVERIFY(findOp(*spec, "/proc/kcore", MountOpKind::MaskFile));
        QVERIFY(findOp(*spec, "/proc/sysrq-trigger", MountOpKind::MaskFile));
        QVERIFY(findOp(*spec, "/proc/sys", MountOpKind::ReadOnly));
        QVERIFY(findOp(*spec, "/dev/pts", MountOpKind::Devpts));
        // /proc must be mounted before anything is masked in it.
        std::size_t procIndex = 0, maskIndex = 0;
        for (std::size_t i = 0; i < spec->setup.mounts.size(); ++i) {
            if (spec->setup.mounts[i].kind == MountOpKind::Proc)
                procIndex = i;
            if (spec->setup.mounts[i].target == "/proc/kcore")
                maskIndex = i;
        }
        QVERIFY(procIndex < maskIndex);
    }

    void tmpIsSizedByPolicyAndMountsAreNosuid()
    {
        Cordon::Policy::ContainerPolicy policy;
        policy.limits.tmpMb = 77;
        policy.mounts.push_back({"/opt/datasets", "/mnt/datasets", false});
        auto spec = build(policy);
        QVERIFY_RESULT(spec);
        const MountOp *tmp = findOp(*spec, "/tmp", MountOpKind::Tmpfs);
        QVERIFY(tmp);
        QVERIFY(tmp->contents.find("size=77m") != std::string::npos);
        const MountOp *extra = findOp(*spec, "/mnt/datasets", MountOpKind::BindFd);
        QVERIFY(extra);
        QVERIFY(extra->flags & MS_NOSUID);
        QVERIFY(!(extra->flags & MS_RDONLY));
    }

    void relativeWorkspaceIsRefused()
    {
        auto spec = buildPlan({}, {"w", "/i", "/o", ""}, idMappingFor(1000, 1000));
        QVERIFY(!spec);
        QCOMPARE(spec.error().code(), "sandbox.invalid_workspace");
    }

    void rootIsNeverMappedToRoot()
    {
        const IdMapping root = idMappingFor(0, 0);
        QCOMPARE(root.hostUid, 65534u);
        QCOMPARE(root.hostGid, 65534u);
        QCOMPARE(root.insideUid, 1000u);
        const IdMapping user = idMappingFor(1001, 1002);
        QCOMPARE(user.hostUid, 1001u);
        QCOMPARE(user.hostGid, 1002u);
    }

    void environmentIsExplicit()
    {
        qputenv("CORDON_TEST_SECRET", "x");
        Cordon::Policy::ContainerPolicy policy;
        policy.env.emplace("LANG", "de_DE.UTF-8");
        QStringList env;
        for (const std::string &entry : Cordon::Containers::OneShot::spawnRequestFor(policy, 1, {"true"}).env)
            env.append(QString::fromStdString(entry));
        QVERIFY(env.contains(QStringLiteral("LANG=de_DE.UTF-8")));
        QVERIFY(env.contains(QStringLiteral("HOME=/mnt/data")));
        QVERIFY(!env.join(u'\n').contains(QLatin1String("CORDON_TEST_SECRET")));
        QCOMPARE(env.filter(QStringLiteral("LANG=")).size(), 1);
    }

    void durations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("millis");
        QTest::newRow("seconds") << QStringLiteral("30s") << qint64(30000);
        QTest::newRow("plain") << QStringLiteral("45") << qint64(45000);
        QTest::newRow("minutes") << QStringLiteral("5m") << qint64(300000);
        QTest::newRow("hours") << QStringLiteral("2h") << qint64(7200000);
        QTest::newRow("millis") << QStringLiteral("1500ms") << qint64(1500);
        QTest::newRow("zero") << QStringLiteral("0s") << qint64(-1);
        QTest::newRow("negative") << QStringLiteral("-5s") << qint64(-1);
        QTest::newRow("fraction") << QStringLiteral("1.5s") << qint64(-1);
        QTest::newRow("unit only") << QStringLiteral("s") << qint64(-1);
        QTest::newRow("over a week") << QStringLiteral("200h") << qint64(-1);
        QTest::newRow("garbage") << QStringLiteral("soon") << qint64(-1);
    }

    void durations()
    {
        QFETCH(QString, text);
        QFETCH(qint64, millis);
        const auto parsed = Cordon::parseDurationMillis(Cordon::toPlain(text));
        if (millis < 0) {
            QVERIFY(!parsed);
            QCOMPARE(parsed.error().code(), "cli.invalid_duration");
            QVERIFY(Cordon::toQt(parsed.error().message()).contains(text));
        } else {
            QVERIFY_RESULT(parsed);
            QCOMPARE(*parsed, millis);
        }
    }

    // A run's limit is whole seconds within the policy's run_timeout_s bounds: never a silent rounding.
    void runTimeouts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("seconds");
        QTest::addColumn<QString>("refusal");
        QTest::newRow("seconds") << QStringLiteral("30s") << 30 << QString();
        QTest::newRow("whole seconds in ms") << QStringLiteral("2000ms") << 2 << QString();
        QTest::newRow("a day") << QStringLiteral("24h") << 86400 << QString();
        QTest::newRow("half a second")
            << QStringLiteral("500ms") << 0 << QStringLiteral("not a whole number of seconds");
        QTest::newRow("1.5 s in ms") << QStringLiteral("1500ms") << 0
                                     << QStringLiteral("not a whole number of seconds");
        QTest::newRow("over a day") << QStringLiteral("25h") << 0 << QStringLiteral("between 1s and 24h");
        QTest::newRow("garbage") << QStringLiteral("soon") << 0 << QStringLiteral("is not a duration");
    }

    void runTimeouts()
    {
        QFETCH(QString, text);
        QFETCH(int, seconds);
        QFETCH(QString, refusal);
        const auto parsed = Cordon::parseRunTimeoutSeconds(Cordon::toPlain(text));
        if (!refusal.isEmpty()) {
            QVERIFY(!parsed);
            QCOMPARE(parsed.error().code(), "cli.invalid_duration");
            QVERIFY2(Cordon::toQt(parsed.error().message()).contains(refusal),
                     parsed.error().message().c_str());
        } else {
            QVERIFY_RESULT(parsed);
            QCOMPARE(*parsed, seconds);
        }
    }
};

QTEST_GUILESS_MAIN(TestSandboxSpec)
#include "tst_sandboxspec.moc"
