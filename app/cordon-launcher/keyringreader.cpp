// SPDX-License-Identifier: MIT
#include "keyringreader.h"

#include "helperprocess.h"

#include "sandbox/secrets/secretrules.h"

namespace Cordon::Launcher {

namespace {

constexpr char ReaderName[] = "cordon-secret-reader";
// A value JSON-escaped at worst six bytes a byte, and an error message.
constexpr std::size_t MaxAnswerBytes = Secrets::MaxValueBytes * 6 + 4096;

Error unavailable(const std::string &why)
{
    return Error("secrets.keyring_unavailable", "cannot read the desktop keyring: " + why);
}

} // namespace

std::string KeyringReader::kind() const
{
    return Secrets::SecretServiceKind;
}

Result<std::string> KeyringReader::read(const std::string &storeId, const std::string &name)
{
    HelperCall call{ReaderName,
                    {storeId, name},
                    {},
                    -1,
                    MaxAnswerBytes,
                    "secrets.keyring_unavailable",
                    "cannot read the desktop keyring"};
    Result<Json> answer = callHelper(call);
    if (!answer)
        return fail(answer.error());
    const Json &value = (*answer)["value"];
    if (!value.isString())
        return fail(unavailable("`" + std::string(ReaderName) + "` answered nonsense"));
    return value.toString();
}

Result<> KeyringReader::write(const std::string &, const std::string &name, std::string_view)
{
    return fail(unavailable("only the daemon changes secret " + name));
}

Result<> KeyringReader::erase(const std::string &, const std::string &name)
{
    return fail(unavailable("only the daemon changes secret " + name));
}

} // namespace Cordon::Launcher
