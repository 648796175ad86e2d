// SPDX-License-Identifier: MIT
// libarchive, loaded at the first archive the scan meets. Linked, it and what it pulls in (libxml2, ICU and
// five compressors: 14 shared objects) were mapped by every program that scans, so that every one-shot run
// whose outputs leave through cordon-artifact-export paid about 2.3 ms for it on the benchmark host, archive
// or not (docs/benchmarks.md). Only the functions the scan calls are looked up.
#pragma once

#include "sandbox/error.h"

#include <archive.h>
#include <archive_entry.h>

namespace Cordon::Scan {

struct LibArchive
{
    decltype(&archive_read_new) readNew = nullptr;
    decltype(&archive_read_free) readFree = nullptr;
    decltype(&archive_read_support_filter_all) supportFilterAll = nullptr;
    decltype(&archive_read_support_format_zip) supportFormatZip = nullptr;
    decltype(&archive_read_support_format_tar) supportFormatTar = nullptr;
    decltype(&archive_read_support_format_gnutar) supportFormatGnutar = nullptr;
    decltype(&archive_read_support_format_7zip) supportFormat7zip = nullptr;
    decltype(&archive_read_support_format_rar) supportFormatRar = nullptr;
    decltype(&archive_read_support_format_rar5) supportFormatRar5 = nullptr;
    decltype(&archive_read_support_format_cpio) supportFormatCpio = nullptr;
    decltype(&archive_read_support_format_raw) supportFormatRaw = nullptr;
    decltype(&archive_read_open_memory) openMemory = nullptr;
    decltype(&archive_read_next_header) nextHeader = nullptr;
    decltype(&archive_read_data) readData = nullptr;
    decltype(&archive_error_string) errorString = nullptr;
    decltype(&archive_entry_filetype) entryFiletype = nullptr;
    decltype(&archive_entry_pathname) entryPathname = nullptr;
};

// The library, loaded once (thread-safe); an error names what could not be loaded, and then no archive can
// be read: the scan reports each as not scanned.
const Result<LibArchive> &libArchive();

} // namespace Cordon::Scan
