// SPDX-License-Identifier: MIT
#include "scan/libarchiveloader.h"

#include "sandbox/sharedlibrary.h"

namespace Cordon::Scan {

namespace {

Result<LibArchive> load()
{
    // Debian 12's libarchive13, the library the headers this is compiled against describe (3.x keeps soname
    // 13).
    auto library = SharedLibrary::open("libarchive.so.13", "libarchive13", "scan.no_libarchive");
    if (!library)
        return fail(library.error());
    LibArchive f;
    const bool found = library->find("archive_read_new", f.readNew) &&
                       library->find("archive_read_free", f.readFree) &&
                       library->find("archive_read_support_filter_all", f.supportFilterAll) &&
                       library->find("archive_read_support_format_zip", f.supportFormatZip) &&
                       library->find("archive_read_support_format_tar", f.supportFormatTar) &&
                       library->find("archive_read_support_format_gnutar", f.supportFormatGnutar) &&
                       library->find("archive_read_support_format_7zip", f.supportFormat7zip) &&
                       library->find("archive_read_support_format_rar", f.supportFormatRar) &&
                       library->find("archive_read_support_format_rar5", f.supportFormatRar5) &&
                       library->find("archive_read_support_format_cpio", f.supportFormatCpio) &&
                       library->find("archive_read_support_format_raw", f.supportFormatRaw) &&
                       library->find("archive_read_open_memory", f.openMemory) &&
                       library->find("archive_read_next_header", f.nextHeader) &&
                       library->find("archive_read_data", f.readData) &&
                       library->find("archive_error_string", f.errorString) &&
                       library->find("archive_entry_filetype", f.entryFiletype) &&
                       library->find("archive_entry_pathname", f.entryPathname);
    if (!found)
        return fail(library->missing());
    return f;
}

} // namespace

const Result<LibArchive> &libArchive()
{
    static const Result<LibArchive> loaded = load();
    return loaded;
}

} // namespace Cordon::Scan
