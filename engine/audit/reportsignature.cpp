// SPDX-License-Identifier: MIT
#include "audit/reportsignature.h"

#include "crypto/cryptoobjects.h"
#include "sandbox/hex.h"
#include "sandbox/sha256.h"

namespace Cordon::Audit {

namespace {

using Crypto::LibCrypto;

using Crypto::MdCtxPtr;
using Crypto::PkeyPtr;

constexpr std::size_t PublicKeyBytes = 32;
constexpr std::size_t SignatureBytes = 64;

Error badKey(const std::string &why)
{
    return Error("audit.bad_key", "the signing key " + why);
}

} // namespace

Result<std::string> newSigningSeed()
{
    const Result<LibCrypto> &crypto = Crypto::libCrypto();
    if (!crypto)
        return fail(crypto.error());
    std::string seed(SigningSeedBytes, '\0');
    if (crypto->RAND_bytes(reinterpret_cast<unsigned char *>(seed.data()), int(seed.size())) != 1)
        return fail(badKey("could not be made: no random bytes"));
    return seed;
}

Result<std::string> publicKeyOf(const std::string &seed)
{
    if (seed.size() != SigningSeedBytes)
        return fail(badKey("is not 32 bytes"));
    const Result<LibCrypto> &crypto = Crypto::libCrypto();
    if (!crypto)
        return fail(crypto.error());
    PkeyPtr key(crypto->EVP_PKEY_new_raw_private_key(
        EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char *>(seed.data()), seed.size()));
    if (!key)
        return fail(badKey("is not an Ed25519 key"));
    std::string publicKey(PublicKeyBytes, '\0');
    std::size_t length = publicKey.size();
    if (crypto->EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char *>(publicKey.data()),
                                            &length) != 1 ||
        length != PublicKeyBytes)
        return fail(badKey("has no public key"));
    return publicKey;
}

std::string signingKeyId(const std::string &publicKey)
{
    return "ak-" + sha256Hex(publicKey).substr(0, 16);
}

Result<Json> signReport(const AuditReport &report, const std::string &seed)
{
    Result<std::string> publicKey = publicKeyOf(seed);
    if (!publicKey)
        return fail(publicKey.error());
    const LibCrypto &crypto = *Crypto::libCrypto(); // publicKeyOf() loaded it
    AuditReport unsigned_ = report;
    unsigned_.signature.reset();
    Json document = unsigned_.toJson();
    const std::string bytes = signedBytes(document);
    PkeyPtr key(crypto.EVP_PKEY_new_raw_private_key(
        EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char *>(seed.data()), seed.size()));
    MdCtxPtr context(crypto.EVP_MD_CTX_new());
    std::string signature(SignatureBytes, '\0');
    std::size_t length = signature.size();
    if (!key || !context ||
        crypto.EVP_DigestSignInit(context.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
        crypto.EVP_DigestSign(context.get(), reinterpret_cast<unsigned char *>(signature.data()), &length,
                              reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size()) != 1 ||
        length != SignatureBytes)
        return fail("audit.sign_failed", "the report could not be signed (libcrypto refused)");
    document.insert("signature", Json::object({{"algorithm", "ed25519"},
                                               {"key_id", signingKeyId(*publicKey)},
                                               {"public_key", toHex(*publicKey)},
                                               {"value", toHex(signature)}}));
    return document;
}

Result<Verification> verifyReport(const Json &document)
{
    Result<AuditReport> report = AuditReport::fromJson(document);
    if (!report)
        return fail(report.error());
    Verification verification;
    const Json::Array &rows = document["rows"].items();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i]["evidence_sha256"].toString() != report->rows[i].evidenceSha256())
            verification.alteredRows.push_back(report->rows[i].id);
    }
    if (!report->signature)
        return verification;
    verification.isSigned = true;
    const ReportSignature &signature = *report->signature;
    std::string publicKey;
    std::string value;
    if (signature.algorithm != "ed25519" || !fromHex(signature.publicKey, publicKey) ||
        publicKey.size() != PublicKeyBytes || !fromHex(signature.value, value) ||
        value.size() != SignatureBytes)
        return fail("audit.bad_signature",
                    "the report's signature is not an Ed25519 signature (algorithm \"ed25519\", a 32-byte "
                    "public key and a 64-byte value in hex)");
    verification.keyId = signingKeyId(publicKey);
    verification.publicKey = toHex(publicKey);
    const Result<LibCrypto> &crypto = Crypto::libCrypto();
    if (!crypto)
        return fail(crypto.error());
    const std::string bytes = signedBytes(document);
    PkeyPtr key(crypto->EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                                    reinterpret_cast<const unsigned char *>(publicKey.data()),
                                                    publicKey.size()));
    MdCtxPtr context(crypto->EVP_MD_CTX_new());
    verification.signatureValid =
        key && context &&
        crypto->EVP_DigestVerifyInit(context.get(), nullptr, nullptr, nullptr, key.get()) == 1 &&
        crypto->EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char *>(value.data()),
                                 value.size(), reinterpret_cast<const unsigned char *>(bytes.data()),
                                 bytes.size()) == 1 &&
        // The key id shown must be the key's own.
        signature.keyId == verification.keyId;
    return verification;
}

} // namespace Cordon::Audit
