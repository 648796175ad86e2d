// SPDX-License-Identifier: MIT
// The programs Cordon ships link the definition of Cordon::weakened() in the sandbox library, as this test
// does: it removes no guarantee whatever CORDON_TEST_WEAKEN says. Only cordond-weakened (tests/weakened/),
// built for tst_audit, links one that reads it.
#include "sandbox/weakening.h"

#include <QTest>

#include <cstdlib>

class WeakeningTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theShippedDefinitionRemovesNothing()
    {
        // Every name tests/weakened/testweakening.cpp knows, and a few that look like them.
        ::setenv(
            "CORDON_TEST_WEAKEN",
            "masking,domain-placeholder,echo-masking,special-files,netns,proxy-allowlist,org-bound,seccomp,"
            "host-proc,"
            "pids,timeout,output-cap,parallel,idempotency,memory,workspace-quota,interrupted,expiry-wipe,"
            "attribution,no-cgroup,all,*,1",
            1);
        for (int value = 0; value <= static_cast<int>(Cordon::Guarantee::Cgroups); ++value)
            QVERIFY2(!Cordon::weakened(static_cast<Cordon::Guarantee>(value)),
                     qPrintable(QString::number(value)));
        ::unsetenv("CORDON_TEST_WEAKEN");
    }
};

QTEST_GUILESS_MAIN(WeakeningTest)
#include "tst_weakening.moc"
