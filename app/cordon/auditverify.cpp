// SPDX-License-Identifier: MIT
#include "auditverify.h"

#include "clioutput.h"
#include "daemoncli.h"

#include "audit/reportsignature.h"
#include "audit/reviewerkeyring.h"
#include "core/plainbridge.h"
#include "sandbox/json.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

namespace Cordon::Cli {

namespace {

Result<QByteArray> readWhole(const QString &path, const char *code)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QLatin1String(code), QStringLiteral("%1: %2").arg(path, file.errorString()));
    return file.readAll();
}

// The keyring at `path`; a missing default keyring is an empty one (nobody is trusted yet).
Result<Audit::ReviewerKeyring> loadKeyring(const QString &path, bool given)
{
    if (!given && !QFile::exists(path))
        return Audit::ReviewerKeyring{};
    auto text = readWhole(path, "audit.bad_keyring");
    if (!text)
        return fail(text.error());
    auto keyring = Audit::parseKeyring(toPlain(*text));
    if (!keyring)
        return fail(keyring.error().wrap(toPlain(path)));
    return keyring;
}

} // namespace

QString defaultKeyringPath()
{
    const QString config = qEnvironmentVariable("XDG_CONFIG_HOME");
    return (config.isEmpty() ? QDir::homePath() + QStringLiteral("/.config") : config) +
           QStringLiteral("/cordon/audit-keyring");
}

int auditVerifyCommand(const QString &path, const QString &expectedKey, const QString &keyringPath, bool json)
{
    auto bytes = readWhole(path, "audit.bad_report");
    if (!bytes)
        return reportError(bytes.error());
    auto document = Json::read(toPlain(*bytes));
    if (!document)
        return reportError(document.error().wrap(toPlain(path)));
    auto verification = Audit::verifyReport(*document);
    if (!verification)
        return reportError(verification.error().wrap(toPlain(path)));
    const QString keyring = keyringPath.isEmpty() ? defaultKeyringPath() : keyringPath;
    auto trusted = loadKeyring(keyring, !keyringPath.isEmpty());
    if (!trusted)
        return reportError(trusted.error());
    const Audit::TrustedKey *signer = trusted->signer(verification->keyId, verification->publicKey);
    const QString signerName = signer ? toQt(signer->name) : QString();
    // --key names the one key accepted; without it, the keyring's keys are.
    const bool keyAccepted =
        expectedKey.isEmpty() ? signer != nullptr : toQt(verification->keyId) == expectedKey;
    const bool intact = verification->intact() && keyAccepted;
    QJsonArray altered;
    for (const std::string &row : verification->alteredRows)
        altered.append(toQt(row));
    if (json) {
        printJson(QJsonObject{{QStringLiteral("signed"), verification->isSigned},
                              {QStringLiteral("signature_valid"), verification->signatureValid},
                              {QStringLiteral("key_id"), toQt(verification->keyId)},
                              {QStringLiteral("public_key"), toQt(verification->publicKey)},
                              {QStringLiteral("signer"), signerName},
                              {QStringLiteral("altered_rows"), altered},
                              {QStringLiteral("key_accepted"), keyAccepted},
                              {QStringLiteral("intact"), intact}});
        return intact ? 0 : 1;
    }
    const QString who = signer ? QStringLiteral("%1 (key %2)").arg(signerName, toQt(verification->keyId))
                               : QStringLiteral("key %1").arg(toQt(verification->keyId));
    if (intact) {
        printOut(QStringLiteral("%1: intact, signed by %2%3\n")
                     .arg(path, who,
                          expectedKey.isEmpty() ? QStringLiteral(", a key of the keyring %1").arg(keyring)
                                                : QStringLiteral(", the key expected")));
        return 0;
    }
    QStringList why;
    if (!verification->isSigned)
        why << QStringLiteral("it is not signed");
    else if (!verification->signatureValid)
        why << QStringLiteral("the signature does not match its content");
    for (const QJsonValue &row : altered)
        why << QStringLiteral("the evidence of row %1 was altered").arg(row.toString());
    if (verification->isSigned && !keyAccepted)
        why << (expectedKey.isEmpty()
                    ? QStringLiteral(
                          "it is signed by %1, which is not in the keyring %2 (add the signer's public "
                          "key %3 and name there once you know whose it is, or give --key)")
                          .arg(who, keyring, toQt(verification->publicKey))
                    : QStringLiteral("it is signed with key %1, not %2")
                          .arg(toQt(verification->keyId), expectedKey));
    printErr(QStringLiteral("%1: NOT intact: %2\n").arg(path, why.join(QStringLiteral("; "))));
    return 1;
}

} // namespace Cordon::Cli
