// SPDX-License-Identifier: MIT
// cordon audit verify REPORT.json [--key ID] [--keyring FILE] [--json] (docs/audit.md).
#pragma once

#include <QString>

namespace Cordon::Cli {

// Intact (exit 0) only when the signature matches the content, no row's evidence was altered, and the signer
// is trusted: the key given with --key, or else a key of the reviewers' keyring (`keyringPath`, empty: the
// default one), whose name the answer gives. An unknown signer is exit 1: anyone can sign with a key of their
// own.
int auditVerifyCommand(const QString &path, const QString &expectedKey, const QString &keyringPath,
                       bool json);

// $XDG_CONFIG_HOME/cordon/audit-keyring (~/.config/cordon/audit-keyring).
QString defaultKeyringPath();

} // namespace Cordon::Cli
