// SPDX-License-Identifier: MIT
// The wire form of what the container manager returns (docs/protocol.md): the manager speaks in domain
// values, and this is the one place that turns them into protocol JSON, for answers and events alike.
#pragma once

#include "containers/containermanager.h"

#include <QJsonArray>
#include <QJsonObject>

namespace Cordon::Api {

QJsonObject containerToJson(const Containers::ContainerSnapshot &container);
QJsonArray containersToJson(const QList<Containers::ContainerSnapshot> &containers);
// How a stop's save went (container.stop with wait_for_save): state "saved" with its counts, "failed" with
// the error (the files stay in memory), or "kept" when there was nothing to save (the copy saved before).
QJsonObject saveToJson(const Containers::WorkspaceSave *save);
QJsonObject memorySampleToJson(const Containers::MemorySample &sample);
QJsonArray memorySamplesToJson(const QList<Containers::MemorySample> &samples);

// The protocol's `run` object. Outcome fields appear once the run is no longer running; stdout, stderr (UTF-8
// text, invalid bytes replaced) and code only with withOutput, because lists stay small.
// How much of each stored stream an answer carries inline (as text: JSON may escape each byte into six, so
// two streams stay under 7 MiB, well inside the 16 MiB frame). A stream cut here has `<stream>_paged`; its
// `<stream>_bytes` says how much is stored, and run.output pages through all of it as base64.
constexpr qsizetype InlineOutputBytes = 512 * 1024;
QJsonObject runRecordToJson(const Store::RunRecord &run, bool withOutput,
                            qsizetype inlineBytes = InlineOutputBytes);
// The same with the egress counts, {allowed, denied, errors}, once the run has ended.
QJsonObject runToJson(const Containers::RunSnapshot &run);
// The egress counts of a run or a one-shot run: {allowed, denied, errors}.
QJsonObject networkCountsToJson(const Containers::NetworkCounts &counts);

// A file's protocol form in uploads and listings: {path, scope, size, sha256}.
QJsonObject fileToJson(const Files::CopiedFile &file, const QString &scope);
// file.list's answer: {files, refused, truncated}; file.download's: {copied (with saved_as), refused}.
QJsonObject fileListingToJson(const Containers::FileReport &listing);
QJsonObject fileDownloadToJson(const Containers::FileReport &download);
// file.csv_preview's answer: {delimiter, line_ending, byte_order_mark, header, columns, rows, pseudonyms,
// truncated, key, key_id}.
QJsonObject csvPreviewToJson(const Containers::CsvPreviewReport &report);
QJsonArray processesToJson(const QList<Containers::ProcessInfo> &processes);

// The organisation allowlist in force: {allowed_domains, path, administered, source}.
QJsonObject orgPolicyToJson(const Network::OrgPolicy &org);
// network.summary's answer: {hosts: [{host, decision, count, last_reason, last_at}], events}; a row whose
// host is empty (a request that could not be parsed) also has "target", its request line quoted and cut.
QJsonObject networkSummaryToJson(const Containers::NetworkSummary &summary);

// A secret as secret.list shows it: {name, set_at, fingerprint, used_by: [{id, name}]}, never its
// value.
QJsonObject secretToJson(const Containers::SecretListing &secret);

// The protocol's `event` object: container and run_id only when the event has them.
QJsonObject eventToJson(const Store::EventRecord &event);

} // namespace Cordon::Api
