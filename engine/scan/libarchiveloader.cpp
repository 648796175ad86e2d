// SPDX-License-Identifier: MIT
#include "scan/libarchiveloader.h"

#include <dlfcn.h>

namespace Cordon::Scan {

namespace {

// Debian 12's libarchive13, the library the headers this is compiled against describe (3.x keeps soname 13).
constexpr const char *LibraryName = "libarchive.so.13";

template<typename Function> bool lookUp(void *library, const char *name, Function &function)
{
    function = reinterpret_cast<Function>(::dlsym(library, name));
    return function != nullptr;
}

Result<LibArchive> load()
{
    void *library = ::dlopen(LibraryName, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char *why = ::dlerror();
        return fail("scan.no_libarchive",
                    std::string(LibraryName) + " could not be loaded: " + (why ? why : "unknown error"));
    }
    LibArchive functions;
    const bool found = lookUp(library, "archive_read_new", functions.readNew) &&
                       lookUp(library, "archive_read_free", functions.readFree) &&
                       lookUp(library, "archive_read_support_filter_gzip", functions.supportFilterGzip) &&
                       lookUp(library, "archive_read_support_format_zip", functions.supportFormatZip) &&
                       lookUp(library, "archive_read_support_format_tar", functions.supportFormatTar) &&
                       lookUp(library, "archive_read_support_format_gnutar", functions.supportFormatGnutar) &&
                       lookUp(library, "archive_read_support_format_raw", functions.supportFormatRaw) &&
                       lookUp(library, "archive_read_open_memory", functions.openMemory) &&
                       lookUp(library, "archive_read_next_header", functions.nextHeader) &&
                       lookUp(library, "archive_read_data", functions.readData) &&
                       lookUp(library, "archive_error_string", functions.errorString) &&
                       lookUp(library, "archive_entry_filetype", functions.entryFiletype) &&
                       lookUp(library, "archive_entry_pathname", functions.entryPathname);
    if (!found) {
        const char *why = ::dlerror();
        ::dlclose(library);
        return fail("scan.no_libarchive", std::string(LibraryName) +
                                              " lacks a function the scan needs: " + (why ? why : "unknown"));
    }
    // Kept loaded for the life of the program: the functions are used from every scan after this one.
    return functions;
}

} // namespace

const Result<LibArchive> &libArchive()
{
    static const Result<LibArchive> loaded = load();
    return loaded;
}

} // namespace Cordon::Scan
