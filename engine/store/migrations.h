// SPDX-License-Identifier: MIT
// The history schema as an ordered list of migrations, numbered by PRAGMA user_version. A migration is never
// edited once released: a change of schema is a new entry at the end.
#pragma once

#include "core/result.h"

#include <span>

namespace Cordon::Store {

class Database;

struct Migration
{
    int version;         // user_version after it ran
    const char *purpose; // for error messages: "migrate the history to version 2 (...)"
    const char *sql;
};

std::span<const Migration> migrations();
int latestSchemaVersion();

// Refuses (store.migration) a database whose user_version is newer than latestSchemaVersion(), without
// writing to it: running old code on a newer schema could silently drop what the newer version records.
Result<> checkSchemaVersion(const Database &db);

// Brings the database to latestSchemaVersion(), one transaction per migration, and returns the version it
// has now. A newer database is refused as by checkSchemaVersion().
Result<int> migrate(const Database &db);

} // namespace Cordon::Store
