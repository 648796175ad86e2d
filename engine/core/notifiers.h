// SPDX-License-Identifier: MIT
#pragma once

#include <QSocketNotifier>

#include <memory>

namespace Cordon {

// Stops watching a descriptor. The notifier may be the very one whose activated() signal we are handling, so it
// is disabled now and deleted from the event loop, never destroyed under its own emit.
inline void retireNotifier(std::unique_ptr<QSocketNotifier> &notifier)
{
    if (!notifier)
        return;
    notifier->setEnabled(false);
    notifier.release()->deleteLater();
}

} // namespace Cordon
