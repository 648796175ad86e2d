// SPDX-License-Identifier: MIT
// The C libraries loaded at their first use instead of linked (engine/sandbox/sharedlibrary.h): one that is
// not installed, or lacks a function, is a clear error naming the library, the Debian package and the
// function; and libcrypto loaded so computes what OpenSSL linked would (RFC 8032's first Ed25519 vector).
#include "audit/reportsignature.h"
#include "crypto/libcryptoloader.h"
#include "sandbox/hex.h"
#include "sandbox/sharedlibrary.h"

#include <QTest>

using namespace Cordon;

namespace {

bool mentions(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class TestSharedLibrary : public QObject
{
    Q_OBJECT

private slots:
    void aMissingLibraryNamesItsPackage()
    {
        const auto library = SharedLibrary::open("libcordon-absent.so.9", "libcordon-absent9", "test.absent");
        QVERIFY(!library);
        QCOMPARE(library.error().code(), std::string("test.absent"));
        const std::string &message = library.error().message();
        QVERIFY2(mentions(message, "libcordon-absent.so.9") && mentions(message, "libcordon-absent9"),
                 message.c_str());
    }

    void aMissingFunctionIsNamed()
    {
        auto library = SharedLibrary::open("libcrypto.so.3", "libssl3", "crypto.no_libcrypto");
        QVERIFY2(library, library ? "" : library.error().message().c_str());
        void (*function)() = nullptr;
        QVERIFY(library->find("EVP_PKEY_free", function));
        QVERIFY(function != nullptr);
        QVERIFY(!library->find("cordon_no_such_function", function));
        QVERIFY(function == nullptr);
        const Error missing = library->missing();
        QCOMPARE(missing.code(), std::string("crypto.no_libcrypto"));
        QVERIFY2(mentions(missing.message(), "cordon_no_such_function"), missing.message().c_str());
    }

    void libcryptoLoadedAtFirstUseGivesTheKnownAnswer()
    {
        const Result<Crypto::LibCrypto> &crypto = Crypto::libCrypto();
        QVERIFY2(crypto, crypto ? "" : crypto.error().message().c_str());
        QVERIFY(crypto->X509_sign != nullptr && crypto->EVP_DigestVerify != nullptr);
        // RFC 8032, section 7.1, TEST 1: the public key of this secret key.
        std::string seed;
        QVERIFY(fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", seed));
        const Result<std::string> publicKey = Audit::publicKeyOf(seed);
        QVERIFY(publicKey);
        QCOMPARE(toHex(*publicKey),
                 std::string("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
    }
};

QTEST_GUILESS_MAIN(TestSharedLibrary)
#include "tst_sharedlibrary.moc"
