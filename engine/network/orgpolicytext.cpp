// SPDX-License-Identifier: MIT
#include "network/orgpolicytext.h"

#include "core/plainbridge.h"
#include "sandbox/policy/networkpolicy.h"

#include <QJsonDocument>
#include <QJsonValue>
#include <QList>

namespace Cordon::Network {

namespace {

// [begin, end) of a piece of the text.
struct Span
{
    qsizetype begin = 0;
    qsizetype end = 0;
};

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

qsizetype skipSpace(const QByteArray &text, qsizetype at)
{
    while (at < text.size() && isSpace(text.at(at)))
        ++at;
    return at;
}

// Just past the closing quote of the string that opens at `at`; -1 when it is not closed.
qsizetype stringEnd(const QByteArray &text, qsizetype at)
{
    for (qsizetype i = at + 1; i < text.size(); ++i) {
        if (text.at(i) == '\\')
            ++i;
        else if (text.at(i) == '"')
            return i + 1;
    }
    return -1;
}

// Just past the value that starts at `at`: a string, an array or object with all it holds (brackets inside
// strings do not count), or a number or literal up to the next delimiter; -1 when the text ends first.
qsizetype valueEnd(const QByteArray &text, qsizetype at)
{
    if (at >= text.size())
        return -1;
    const char first = text.at(at);
    if (first == '"')
        return stringEnd(text, at);
    if (first == '[' || first == '{') {
        int depth = 0;
        for (qsizetype i = at; i < text.size(); ++i) {
            const char c = text.at(i);
            if (c == '"') {
                i = stringEnd(text, i);
                if (i < 0)
                    return -1;
                --i;
            } else if (c == '[' || c == '{') {
                ++depth;
            } else if ((c == ']' || c == '}') && --depth == 0) {
                return i + 1;
            }
        }
        return -1;
    }
    qsizetype i = at;
    while (i < text.size() && !isSpace(text.at(i)) && text.at(i) != ',' && text.at(i) != '}' &&
           text.at(i) != ']')
        ++i;
    return i;
}

// Where the value of `key` is in the top-level object.
std::optional<Span> topLevelValue(const QByteArray &text, const QByteArray &key)
{
    qsizetype at = skipSpace(text, 0);
    if (at >= text.size() || text.at(at) != '{')
        return std::nullopt;
    at = skipSpace(text, at + 1);
    std::optional<Span> found;
    while (at < text.size() && text.at(at) != '}') {
        if (text.at(at) != '"')
            return std::nullopt;
        const qsizetype keyEnd = stringEnd(text, at);
        if (keyEnd < 0)
            return std::nullopt;
        // Compared as written: the key we look for has nothing to escape.
        const QByteArray name = text.mid(at + 1, keyEnd - at - 2);
        at = skipSpace(text, keyEnd);
        if (at >= text.size() || text.at(at) != ':')
            return std::nullopt;
        at = skipSpace(text, at + 1);
        const qsizetype end = valueEnd(text, at);
        if (end < 0)
            return std::nullopt;
        if (name == key)
            found = Span{at, end};
        at = skipSpace(text, end);
        if (at < text.size() && text.at(at) == ',')
            at = skipSpace(text, at + 1);
    }
    return found;
}

// Each element of the array that opens at `span.begin`, as a span of the text.
QList<Span> elements(const QByteArray &text, Span span)
{
    QList<Span> found;
    qsizetype at = skipSpace(text, span.begin + 1);
    while (at < span.end && text.at(at) != ']') {
        const qsizetype end = valueEnd(text, at);
        if (end < 0 || end > span.end)
            return {};
        found.append({at, end});
        at = skipSpace(text, end);
        if (at < span.end && text.at(at) == ',')
            at = skipSpace(text, at + 1);
    }
    return found;
}

// An entry as the policy reads it: "PyPI.org" and {"domain": "pypi.org"} are the same rule. Null for an
// entry the policy would refuse (it can then only match itself, as written).
QJsonValue canonical(const QJsonValue &entry)
{
    const Result<Policy::DomainRule> rule = Policy::domainRuleFromJson(toPlain(entry), "allowed_domains");
    return rule ? toQt(Policy::domainRuleToJson(*rule)) : QJsonValue();
}

QJsonValue parsed(const QByteArray &element)
{
    const QJsonDocument document = QJsonDocument::fromJson('[' + element + ']');
    return document.isArray() && !document.array().isEmpty() ? document.array().first() : QJsonValue();
}

QByteArray compact(const QJsonValue &value)
{
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

// The spaces and tabs that start the line `at` is on.
QByteArray lineIndent(const QByteArray &text, qsizetype at)
{
    const qsizetype start = at > 0 ? text.lastIndexOf('\n', at - 1) + 1 : 0;
    qsizetype end = start;
    while (end < text.size() && (text.at(end) == ' ' || text.at(end) == '\t'))
        ++end;
    return text.mid(start, end - start);
}

} // namespace

std::optional<QByteArray> withAllowedDomains(const QByteArray &text, const QJsonArray &domains)
{
    const std::optional<Span> span = topLevelValue(text, QByteArrayLiteral("allowed_domains"));
    if (!span || text.at(span->begin) != '[')
        return std::nullopt;
    const QList<Span> written = elements(text, *span);
    QList<QJsonValue> writtenRules;
    for (const Span &element : written) {
        const QJsonValue value = parsed(text.mid(element.begin, element.end - element.begin));
        const QJsonValue rule = canonical(value);
        writtenRules.append(rule.isNull() ? value : rule);
    }

    // An entry that stays keeps its text; each is used once, so that a duplicate added is written anew.
    QList<QByteArray> entries;
    for (const QJsonValue &domain : domains) {
        const QJsonValue rule = canonical(domain);
        const qsizetype kept = writtenRules.indexOf(rule.isNull() ? domain : rule);
        if (kept >= 0) {
            entries.append(text.mid(written.at(kept).begin, written.at(kept).end - written.at(kept).begin));
            writtenRules[kept] = QJsonValue(QJsonValue::Undefined);
        } else {
            entries.append(compact(domain));
        }
    }

    const QByteArray array = text.mid(span->begin, span->end - span->begin);
    // One entry per line when the array was written so, or was empty in a file written over several lines.
    const bool perLine = array.contains('\n') || (written.isEmpty() && text.trimmed().contains('\n'));
    QByteArray replacement;
    if (entries.isEmpty()) {
        replacement = QByteArrayLiteral("[]");
    } else if (!perLine) {
        replacement = '[' + entries.join(", ") + ']';
    } else {
        const QByteArray keyIndent = lineIndent(text, span->begin);
        const QByteArray closing = written.isEmpty() ? keyIndent : lineIndent(text, span->end - 1);
        const QByteArray inner =
            written.isEmpty() ? keyIndent + (keyIndent.isEmpty() ? QByteArrayLiteral("    ") : keyIndent)
                              : lineIndent(text, written.first().begin);
        replacement = "[\n" + inner + entries.join(",\n" + inner) + '\n' + closing + ']';
    }
    return text.left(span->begin) + replacement + text.mid(span->end);
}

} // namespace Cordon::Network
