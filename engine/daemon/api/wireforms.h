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
QJsonObject memorySampleToJson(const Containers::MemorySample &sample);
QJsonArray memorySamplesToJson(const QList<Containers::MemorySample> &samples);

} // namespace Cordon::Api
