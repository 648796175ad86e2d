// SPDX-License-Identifier: MIT
// Build-time tool: compiles the seccomp allowlist (sandbox/seccomp/seccompprofile.cpp) with libseccomp for
// each set of options and writes the raw BPF programs as C++ arrays, which the engine then installs without
// compiling anything at run time (sandbox/seccompfilters.h). libseccomp takes about 1.8 ms per compile, a
// tenth of a one-shot `cordon run`; the programs only change when the profile or libseccomp does, i.e. at
// build time.
//
//   generate-seccomp-filters OUTPUT.inc
#include "sandbox/seccomp/seccompprofile.h"

#include <cstdio>

namespace {

bool writeArray(std::FILE *out, const char *name, const std::string &program)
{
    if (std::fprintf(out, "alignas(8) constexpr unsigned char %s[] = {", name) < 0)
        return false;
    for (std::size_t i = 0; i < program.size(); ++i) {
        if (std::fprintf(out, "%s0x%02x,", i % 16 == 0 ? "\n    " : " ",
                         static_cast<unsigned char>(program[i])) < 0)
            return false;
    }
    return std::fprintf(out, "\n};\n\n") >= 0;
}

} // namespace

int main(int argc, char *argv[])
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: generate-seccomp-filters OUTPUT.inc\n");
        return 2;
    }
    const auto plain = Cordon::Isolation::compileSeccompFilter({.allowPtrace = false});
    const auto ptrace = Cordon::Isolation::compileSeccompFilter({.allowPtrace = true});
    for (const auto *result : {&plain, &ptrace}) {
        if (!*result) {
            std::fprintf(stderr, "generate-seccomp-filters: %s\n", result->error().message().c_str());
            return 1;
        }
    }
    std::FILE *out = std::fopen(argv[1], "w");
    if (!out) {
        std::perror(argv[1]);
        return 1;
    }
    const bool written =
        std::fprintf(
            out,
            "// Generated at build time by generate-seccomp-filters from sandbox/seccomp/seccompprofile.cpp"
            " and libseccomp. Do not edit.\n\n") >= 0 &&
        writeArray(out, "SeccompFilterDefault", *plain) &&
        writeArray(out, "SeccompFilterWithPtrace", *ptrace);
    if (std::fclose(out) != 0 || !written) {
        std::perror(argv[1]);
        return 1;
    }
    return 0;
}
