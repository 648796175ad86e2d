// SPDX-License-Identifier: MIT
// The seccomp allowlist as raw BPF, compiled once at build time (isolation/generator) from the same profile
// that compileSeccompFilter() builds at run time: a container start or a one-shot run installs it without
// paying for libseccomp's compile. tst_seccomp checks that both are the same program, byte for byte.
#pragma once

#include "isolation/seccompprofile.h"

#include <QByteArrayView>

namespace Cordon::Isolation {

QByteArrayView prebuiltSeccompFilter(const SeccompOptions &options);

} // namespace Cordon::Isolation
