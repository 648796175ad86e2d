// SPDX-License-Identifier: MIT
// cordon-secret-reader STORE_ID NAME: one value of a secret store that keeps its values in the desktop
// keyring, for the `cordon` launcher. The launcher is a static program and cannot load libsecret, so a
// one-shot `cordon run` whose policy names such a secret reads it through this helper, over a pipe
// (app/cordon-launcher/keyringreader.h). It prints {"value": ...} or {"error": {"code", "message"}} as JSON
// on standard output, and refuses a terminal there: values are handed to the launcher, never shown.
#include "sandbox/json.h"
#include "sandbox/secrets/secretrules.h"
#include "sandbox/writeall.h"
#include "secretservice/secretservicevault.h"

#include <string>
#include <unistd.h>

namespace {

int answer(const Cordon::Json &document, int status)
{
    return Cordon::writeFully(STDOUT_FILENO, document.serialize() + "\n") == 0 ? status : 1;
}

int refuse(const Cordon::Error &error)
{
    return answer(Cordon::Json::object({{"error", Cordon::Json::object({{"code", error.code()},
                                                                        {"message", error.message()}})}}),
                  1);
}

} // namespace

int main(int argc, char *argv[])
{
    if (argc != 3 || ::isatty(STDOUT_FILENO)) {
        const char usage[] = "cordon-secret-reader is a helper of `cordon run`, which reads secret values "
                             "from the desktop keyring through it; it is not meant to be run by hand\n";
        (void)Cordon::writeFully(STDERR_FILENO, usage);
        return 2;
    }
    const std::string storeId = argv[1];
    const std::string name = argv[2];
    if (const auto checked = Cordon::Secrets::checkSecretName(name); !checked)
        return refuse(checked.error());
    Cordon::Secrets::SecretServiceVault vault;
    auto value = vault.read(storeId, name);
    if (!value)
        return refuse(value.error());
    return answer(Cordon::Json::object({{"value", *value}}), 0);
}
