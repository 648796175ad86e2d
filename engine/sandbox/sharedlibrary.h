// SPDX-License-Identifier: MIT
// A shared library loaded at first use (dlopen) instead of linked, and the functions looked up in it. For the
// C libraries only some calls need (libarchive for archives in outputs, libsecret for the keyring): linked,
// every program that links their user maps and initialises them, and their own dependencies, at start.
// Header-only, so that the static programs that link this library never pull dlopen in.
#pragma once

#include "sandbox/error.h"

#include <dlfcn.h>

#include <string>

namespace Cordon {

class SharedLibrary
{
public:
    // Loads `soname` (kept loaded for the life of the program: the functions found are used from then on).
    // The error has `code` and names the Debian package that ships the library.
    static Result<SharedLibrary> open(const char *soname, const char *package, const std::string &code)
    {
        void *handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char *why = ::dlerror();
            return fail(code, std::string(soname) + " could not be loaded (is " + package +
                                  " installed?): " + (why ? why : "unknown error"));
        }
        return SharedLibrary(handle, soname, code);
    }

    // Sets `function` to the named symbol, which dlsym also looks for in the library's own dependencies.
    // False when it is absent; then missing() says which.
    template<typename Function> bool find(const char *name, Function &function)
    {
        function = reinterpret_cast<Function>(::dlsym(m_handle, name));
        if (function == nullptr && m_missing.empty())
            m_missing = name;
        return function != nullptr;
    }

    // The error for a library that lacks a function find() looked for.
    Error missing() const { return Error(m_code, m_soname + " lacks " + m_missing + ", which Cordon needs"); }

private:
    SharedLibrary(void *handle, std::string soname, std::string code)
        : m_handle(handle), m_soname(std::move(soname)), m_code(std::move(code))
    {}

    void *m_handle;
    std::string m_soname;
    std::string m_code;
    std::string m_missing;
};

} // namespace Cordon
