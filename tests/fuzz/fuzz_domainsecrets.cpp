// SPDX-License-Identifier: MIT
// Fuzzes the placeholder substitution of domain secrets (network/domainsecrets.h) on request heads the way
// the proxy builds them: a request line and fields, with placeholders spliced in at places the input picks.
// Besides memory errors it checks the promises the proxy relies on: a refused head is left as it was; an
// allowed one no longer holds any placeholder of the host's secrets, gains no line break, and every value it
// now holds went to its own domain over terminated TLS.
#include "network/domainsecrets.h"

#include <cstdint>
#include <cstdlib>

using namespace Cordon::Network;

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

const QByteArray TokenPlaceholder = "cordon-placeholder-TOKEN-0123456789abcdef0123456789abcdef";
const QByteArray OtherPlaceholder = "cordon-placeholder-OTHER-fedcba9876543210fedcba9876543210";
const QByteArray TokenValue = "token-value-AAAA";
const QByteArray OtherValue = "other-value-BBBB";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    // First byte: which host and whether the TLS is terminated; the rest is the head, in which 0x01 and 0x02
    // stand for the two placeholders (0x03 for one in upper case).
    const QString host =
        (data[0] & 1) ? QStringLiteral("api.example.com") : QStringLiteral("other.example.org");
    const bool terminated = (data[0] & 2) != 0;
    QByteArray head;
    for (size_t i = 1; i < size; ++i) {
        const char c = char(data[i]);
        if (c == '\x01')
            head += TokenPlaceholder;
        else if (c == '\x02')
            head += OtherPlaceholder;
        else if (c == '\x03')
            head += TokenPlaceholder.toUpper();
        else
            head += c;
    }
    const DomainSecrets secrets(
        {{QStringLiteral("TOKEN"), {QStringLiteral("api.example.com")}, TokenPlaceholder, TokenValue},
         {QStringLiteral("OTHER"), {QStringLiteral("other.example.org")}, OtherPlaceholder, OtherValue}});
    const QByteArray before = head;
    const DomainSecrets::Verdict verdict = secrets.apply(head, host, terminated);
    if (!verdict.allowed) {
        check(head == before);
        check(!verdict.refusedSecret.isEmpty() && !verdict.reason.isEmpty());
        return 0;
    }
    const QByteArray folded = head.toLower();
    check(!folded.contains(TokenPlaceholder.toLower()) || host != QLatin1String("api.example.com"));
    check(head.count('\n') == before.count('\n') && head.count('\r') == before.count('\r'));
    // A value appears only where the head already had it, or where it was sent to its own domain.
    if (head.count(TokenValue) > before.count(TokenValue))
        check(terminated && host == QLatin1String("api.example.com") &&
              verdict.sent.contains(QStringLiteral("TOKEN")));
    if (head.count(OtherValue) > before.count(OtherValue))
        check(terminated && host == QLatin1String("other.example.org") &&
              verdict.sent.contains(QStringLiteral("OTHER")));
    if (verdict.sent.isEmpty())
        check(head == before);
    return 0;
}
