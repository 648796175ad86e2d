// SPDX-License-Identifier: MIT
// What the credentials rows (credentialrows.cpp, domainsecretecho.cpp) share: the audit's invalid keys, and
// the places a reviewer would look for one after a run (its stored streams, the history, the events, a
// download of the outputs).
#pragma once

#include "auditrunner/auditrows.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace Cordon::Audit {

// Every stored byte of a run's stream, paged through run.output; an error when a page is refused or the pages
// do not add up to the stored total.
Result<QByteArray> storedStream(ProbeSession &session, const QString &runId, const QString &stream);

// Whether any of `values` is in `haystack`.
bool containsAny(const QByteArray &haystack, const QStringList &values);

// What a reviewer would look through after the run: its streams as stored (which must show the key masked
// as [secret:NAME] at least once, so that the masking was exercised), the container's history and events,
// and the files a download of the outputs saves. None may hold any of `values`.
void checkNothingShows(RowRecorder &row, ProbeSession &session, const QString &containerId,
                       const QString &runId, const QStringList &values);

struct AuditKey
{
    QString name;
    QString value;
};

// Sets a fresh invalid key of the audit's in `store`'s secret store under NAME_PREFIX and 8 hex digits. The
// value (with `decorated`, distinctFormsSuffix(), so that every form of docs/secrets.md differs from the
// others) is remembered in the context with every form of it, so that none may appear anywhere the audit
// looks.
Result<AuditKey> setAuditKey(AuditContext &context, ProbeSession &store, const QString &namePrefix,
                             bool decorated = false);

} // namespace Cordon::Audit
