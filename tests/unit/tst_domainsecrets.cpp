// SPDX-License-Identifier: MIT
// Domain secrets without a sandbox: the per-container authority checked by the openssl command (its leaves
// verify for their domain and no other; it is name-constrained to its domains), and the placeholder
// substitution on request heads, including what must refuse.
#include "network/domainsecrets.h"
#include "network/interceptionauthority.h"

#include "testutil.h"

#include <QFile>
#include <QObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace Cordon;
using namespace Cordon::Network;

namespace {

QString str(const char *text)
{
    return QString::fromUtf8(text);
}

struct Command
{
    int exitCode = -1;
    QByteArray output;
};

Command openssl(const QStringList &arguments, const QString &directory)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStandardPaths::findExecutable(str("openssl")), arguments);
    if (!process.waitForFinished(30000))
        return {};
    return {process.exitCode(), process.readAll()};
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

DomainSecrets twoSecrets()
{
    return DomainSecrets({
        {str("API_TOKEN"),
         {str("api.example.com")},
         "cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef",
         "real-token-value"},
        {str("OTHER"),
         {str("other.example.org"), str("second.example.org")},
         "cordon-placeholder-OTHER-fedcba9876543210fedcba9876543210",
         "other-value"},
    });
}

} // namespace

class TestDomainSecrets : public QObject
{
    Q_OBJECT

private slots:
    void placeholdersAreNamed()
    {
        QCOMPARE(placeholderFor(str("API_TOKEN"), "0123456789abcdef0123456789abcdef"),
                 QByteArray("cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef"));
    }

    void valuesGoOnlyToTheirDomainOverTerminatedTls()
    {
        const DomainSecrets secrets = twoSecrets();
        QVERIFY(secrets.intercepts(str("api.example.com")));
        QVERIFY(secrets.intercepts(str("second.example.org")));
        QVERIFY(!secrets.intercepts(str("example.com")));

        QByteArray head =
            "GET /v1 HTTP/1.1\r\nHost: api.example.com\r\n"
            "Authorization: Bearer CORDON-PLACEHOLDER-API_TOKEN-0123456789ABCDEF0123456789ABCDEF\r\n\r\n";
        DomainSecrets::Verdict verdict = secrets.apply(head, str("api.example.com"), true);
        QVERIFY(verdict.allowed);
        QCOMPARE(verdict.sent, QStringList{str("API_TOKEN")});
        QCOMPARE(head, QByteArray("GET /v1 HTTP/1.1\r\nHost: api.example.com\r\n"
                                  "Authorization: Bearer real-token-value\r\n\r\n"));

        // Only into its own header (Authorization unless the policy names another): servers echo and log
        // the others. The whole request is refused, the head untouched, even beside a rightful one.
        for (const char *field :
             {"User-Agent", "X-Request-Id", "Cookie", "Referer", "X-Key", "authorization2"}) {
            QByteArray echoed = "GET / HTTP/1.1\r\nAuthorization: Bearer "
                                "cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef\r\n" +
                                QByteArray(field) +
                                ": x cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef\r\n\r\n";
            const QByteArray untouched = echoed;
            verdict = secrets.apply(echoed, str("api.example.com"), true);
            QVERIFY2(!verdict.allowed, field);
            QCOMPARE(verdict.reason, str("secret API_TOKEN goes only in the authorization header, not in %1: "
                                         "servers echo and log other headers")
                                         .arg(QString::fromLatin1(field).toLower()));
            QCOMPARE(echoed, untouched);
        }

        // Not in the URL (servers echo it back into the sandbox) nor in a field name.
        for (const QByteArray &misplaced :
             {QByteArray("GET /v1?key=cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef "
                         "HTTP/1.1\r\n\r\n"),
              QByteArray("GET / HTTP/1.1\r\nX-cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef: "
                         "1\r\n\r\n")}) {
            QByteArray copy = misplaced;
            verdict = secrets.apply(copy, str("api.example.com"), true);
            QVERIFY(!verdict.allowed);
            QVERIFY2(verdict.reason.contains(str("not in the URL")), qPrintable(verdict.reason));
            QCOMPARE(copy, misplaced);
        }

        // The same placeholder to another domain, even one the proxy terminates: refused, head untouched.
        QByteArray other =
            "GET / HTTP/1.1\r\nX-Leak: cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef\r\n\r\n";
        const QByteArray before = other;
        verdict = secrets.apply(other, str("other.example.org"), true);
        QVERIFY(!verdict.allowed);
        QCOMPARE(verdict.refusedSecret, str("API_TOKEN"));
        QCOMPARE(verdict.reason, str("secret API_TOKEN may only be sent to api.example.com"));
        QCOMPARE(other, before);

        // Its own domain, but not inside TLS the proxy terminated (plain HTTP, or a CONNECT target).
        QByteArray plain = "GET / HTTP/1.1\r\nAuthorization: "
                           "cordon-placeholder-OTHER-fedcba9876543210fedcba9876543210\r\n\r\n";
        verdict = secrets.apply(plain, str("second.example.org"), false);
        QVERIFY(!verdict.allowed);
        QCOMPARE(verdict.reason, str("secret OTHER is sent to second.example.org only over HTTPS"));

        // One secret for two domains; and a head with none is left alone.
        QByteArray both = "GET / HTTP/1.1\r\nauthorization: "
                          "cordon-placeholder-OTHER-fedcba9876543210fedcba9876543210\r\n\r\n";
        verdict = secrets.apply(both, str("second.example.org"), true);
        QVERIFY(verdict.allowed);
        QVERIFY(both.contains("authorization: other-value\r\n"));
        QByteArray none = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        verdict = secrets.apply(none, str("x"), false);
        QVERIFY(verdict.allowed);
        QVERIFY(verdict.sent.isEmpty());
    }

    // A policy that names another header (an API that takes X-Api-Key): only that one, in any letter case.
    void aSecretGoesIntoTheHeaderThePolicyNames()
    {
        const DomainSecrets secrets({{str("API_KEY"),
                                      {str("api.example.com")},
                                      "cordon-placeholder-API_KEY-11111111111111111111111111111111",
                                      "real-key",
                                      "x-api-key"}});
        QByteArray named = "GET / HTTP/1.1\r\nX-API-Key: "
                           "cordon-placeholder-API_KEY-11111111111111111111111111111111\r\n\r\n";
        QVERIFY(secrets.apply(named, str("api.example.com"), true).allowed);
        QVERIFY(named.contains("X-API-Key: real-key\r\n"));
        QByteArray usual = "GET / HTTP/1.1\r\nAuthorization: "
                           "cordon-placeholder-API_KEY-11111111111111111111111111111111\r\n\r\n";
        const DomainSecrets::Verdict verdict = secrets.apply(usual, str("api.example.com"), true);
        QVERIFY(!verdict.allowed);
        QVERIFY2(verdict.reason.contains(str("only in the x-api-key header")), qPrintable(verdict.reason));
        QVERIFY(!usual.contains("real-key"));
    }

    void aRemovedSecretIsRefusedNotSentAsItIs()
    {
        const DomainSecrets secrets({{str("GONE"),
                                      {str("api.example.com")},
                                      "cordon-placeholder-GONE-00000000000000000000000000000000",
                                      QByteArray()}});
        QByteArray head = "GET / HTTP/1.1\r\nAuthorization: "
                          "cordon-placeholder-GONE-00000000000000000000000000000000\r\n\r\n";
        const DomainSecrets::Verdict verdict = secrets.apply(head, str("api.example.com"), true);
        QVERIFY(!verdict.allowed);
        QCOMPARE(verdict.reason, str("secret GONE is no longer in the store (cordon secret set GONE)"));
    }

    void aRequestThatCarriesAValueAsksForIdentity()
    {
        const QByteArray head = "GET /v1 HTTP/1.1\r\nHost: api.example.com\r\naccept-encoding: gzip, br\r\n"
                                "Accept: */*\r\nAccept-Encoding: zstd\r\n\r\n";
        QCOMPARE(withIdentityEncoding(head),
                 QByteArray("GET /v1 HTTP/1.1\r\nHost: api.example.com\r\nAccept: */*\r\n"
                            "Accept-Encoding: identity\r\n\r\n"));
        QList<DomainSecretValue> values{{str("API_TOKEN"), {str("api.example.com"), str("b.example.com")},
                                         "cordon-placeholder-API_TOKEN-0", "real-token-value"}};
        values[0].compressedDomains = {str("b.example.com")};
        const DomainSecrets secrets(values);
        QVERIFY(!secrets.allowsCompressed(str("api.example.com"), {str("API_TOKEN")}));
        QVERIFY(secrets.allowsCompressed(str("b.example.com"), {str("API_TOKEN")}));
    }

    void aValueWithALineBreakNeverEntersAHead()
    {
        const DomainSecrets secrets({{str("BAD"),
                                      {str("api.example.com")},
                                      "cordon-placeholder-BAD-00000000000000000000000000000000",
                                      "value\r\nX-Injected: 1"}});
        QByteArray head = "GET / HTTP/1.1\r\nAuthorization: "
                          "cordon-placeholder-BAD-00000000000000000000000000000000\r\n\r\n";
        const DomainSecrets::Verdict verdict = secrets.apply(head, str("api.example.com"), true);
        QVERIFY(!verdict.allowed);
        QVERIFY(!head.contains("X-Injected"));
    }

    void authorityIssuesLeavesOnlyForItsDomains()
    {
        if (QStandardPaths::findExecutable(str("openssl")).isEmpty())
            SKIP_UNLESS_MUST_WORK("no openssl command");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto created = InterceptionAuthority::create(str("c-1"), {str("api.example.com"), str("localhost")});
        QVERIFY_RESULT(created);
        InterceptionAuthority &authority = **created;
        QVERIFY(writeFile(dir.filePath(str("ca.pem")), authority.certificatePem()));

        const Command ca =
            openssl({str("x509"), str("-in"), str("ca.pem"), str("-noout"), str("-text")}, dir.path());
        QCOMPARE(ca.exitCode, 0);
        QVERIFY2(ca.output.contains("X509v3 Name Constraints: critical"), ca.output.constData());
        QVERIFY(ca.output.contains("DNS:api.example.com") && ca.output.contains("DNS:localhost"));
        // Not their subdomains, and no address at all (a DNS constraint alone would allow both).
        const qsizetype excluded = ca.output.indexOf("Excluded:");
        QVERIFY2(excluded > 0, ca.output.constData());
        const QByteArray excludedPart = ca.output.mid(excluded);
        QVERIFY2(excludedPart.contains("DNS:.api.example.com") && excludedPart.contains("DNS:.localhost"),
                 ca.output.constData());
        QVERIFY2(excludedPart.contains("IP:0.0.0.0/0.0.0.0") &&
                     excludedPart.contains("IP:0:0:0:0:0:0:0:0/0:0:0:0:0:0:0:0"),
                 excludedPart.left(300).constData());
        QVERIFY(ca.output.contains("CA:TRUE, pathlen:0"));
        QVERIFY(ca.output.contains("ASN1 OID: prime256v1"));

        auto leaf = authority.leafFor(str("api.example.com"));
        QVERIFY_RESULT(leaf);
        QVERIFY(writeFile(dir.filePath(str("leaf.pem")), leaf->certificate.toPem()));
        QCOMPARE(openssl({str("verify"), str("-CAfile"), str("ca.pem"), str("-verify_hostname"),
                          str("api.example.com"), str("leaf.pem")},
                         dir.path())
                     .exitCode,
                 0);
        const Command wrongName = openssl({str("verify"), str("-CAfile"), str("ca.pem"),
                                           str("-verify_hostname"), str("evil.example.net"), str("leaf.pem")},
                                          dir.path());
        QVERIFY2(wrongName.exitCode != 0, wrongName.output.constData());
        QVERIFY(!leaf->key.isNull());
        QCOMPARE(leaf->key.algorithm(), QSsl::Ec);

        // Cached: the same certificate again; no certificate for a domain without a secret.
        QCOMPARE(authority.leafFor(str("api.example.com"))->certificate, leaf->certificate);
        auto other = authority.leafFor(str("evil.example.net"));
        QVERIFY(!other);
        QCOMPARE(other.error().code(), "network.tls_authority");

        // Two containers never share a key or a certificate.
        auto second = InterceptionAuthority::create(str("c-2"), {str("api.example.com")});
        QVERIFY_RESULT(second);
        QVERIFY((*second)->certificate() != authority.certificate());
        QVERIFY((*second)->leafFor(str("api.example.com"))->certificate.publicKey() !=
                leaf->certificate.publicKey());
    }

    void aSavedAuthorityIsTheSameAuthority()
    {
        // What a daemon saves for the daemon after it: restored, it issues leaves that the first one's
        // certificate (the one the sandbox trusts) verifies.
        if (QStandardPaths::findExecutable(str("openssl")).isEmpty())
            SKIP_UNLESS_MUST_WORK("no openssl command");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto first = InterceptionAuthority::create(str("c-1"), {str("api.example.com")});
        QVERIFY_RESULT(first);
        auto saved = (*first)->savedForm();
        QVERIFY_RESULT(saved);
        QVERIFY(saved->contains("PRIVATE KEY") && saved->contains("CERTIFICATE"));
        auto restored = InterceptionAuthority::restore({str("api.example.com")}, *saved);
        QVERIFY_RESULT(restored);
        QCOMPARE((*restored)->certificate(), (*first)->certificate());
        auto leaf = (*restored)->leafFor(str("api.example.com"));
        QVERIFY_RESULT(leaf);
        QVERIFY(writeFile(dir.filePath(str("ca.pem")), (*first)->certificatePem()));
        QVERIFY(writeFile(dir.filePath(str("leaf.pem")), leaf->certificate.toPem()));
        QCOMPARE(openssl({str("verify"), str("-CAfile"), str("ca.pem"), str("-verify_hostname"),
                          str("api.example.com"), str("leaf.pem")},
                         dir.path())
                     .exitCode,
                 0);

        // Another authority's key beside this certificate, a certificate alone, or nothing: refused.
        auto other = InterceptionAuthority::create(str("c-2"), {str("api.example.com")});
        QVERIFY_RESULT(other);
        const QByteArray keyOfOther =
            (*other)->savedForm()->left((*other)->savedForm()->indexOf("-----BEGIN CERTIFICATE"));
        QVERIFY(keyOfOther.contains("PRIVATE KEY") && !keyOfOther.contains("CERTIFICATE"));
        const QByteArray forgeries[] = {QByteArray(keyOfOther + (*first)->certificatePem()),
                                        (*first)->certificatePem(), QByteArray(), QByteArray("not a PEM")};
        for (const QByteArray &forged : forgeries) {
            auto refused = InterceptionAuthority::restore({str("api.example.com")}, forged);
            QVERIFY(!refused);
            QCOMPARE(refused.error().code(), "network.tls_authority");
        }
    }
};

QTEST_GUILESS_MAIN(TestDomainSecrets)
#include "tst_domainsecrets.moc"
