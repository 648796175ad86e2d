// SPDX-License-Identifier: MIT
// secret.*: the host's secret store (docs/secrets.md). Values come in with secret.set and never go out:
// answers carry names, times, fingerprints and the containers that use each secret.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"

#include <QJsonArray>

namespace Cordon::Api {

namespace {

Result<QJsonObject> list(ApiContext &context, const QJsonObject &)
{
    auto secrets = context.manager.secrets();
    if (!secrets)
        return fail(secrets.error());
    auto valuesIn = context.manager.secretValuesIn();
    if (!valuesIn)
        return fail(valuesIn.error());
    auto keys = context.manager.pseudonymKeys();
    if (!keys)
        return fail(keys.error());
    QJsonArray out;
    for (const Containers::SecretListing &listing : *secrets)
        out.append(secretToJson(listing));
    // The keys of CSV pseudonymisation (docs/pseudonymize.md) live in the same store, and never leave it.
    QJsonArray pseudonymKeys;
    for (const Secrets::StoredPseudonymKey &key : *keys)
        pseudonymKeys.append(QJsonObject{{QStringLiteral("name"), toQt(key.name)},
                                         {QStringLiteral("id"), toQt(key.id)},
                                         {QStringLiteral("created_at"), qint64(key.createdAtMs)}});
    return QJsonObject{{QStringLiteral("secrets"), out},
                       {QStringLiteral("values_in"), *valuesIn},
                       {QStringLiteral("pseudonym_keys"), pseudonymKeys}};
}

Result<QJsonObject> set(ApiContext &context, const QJsonObject &params)
{
    auto name = requireString(params, QStringLiteral("name"));
    if (!name)
        return fail(name.error());
    // The value is never quoted back, not even in an error: a message may end up in a log.
    const QJsonValue value = params.value(QStringLiteral("value"));
    if (!value.isString())
        return fail(invalidParams(QStringLiteral("`value` must be a string")));
    auto origin = optionalOrigin(params);
    if (!origin)
        return fail(origin.error());
    auto set = context.manager.setSecret(*name, value.toString().toStdString(), *origin);
    if (!set)
        return fail(set.error());
    return wrap(QStringLiteral("secret"), secretToJson(*set));
}

Result<QJsonObject> remove(ApiContext &context, const QJsonObject &params)
{
    auto name = requireString(params, QStringLiteral("name"));
    auto pseudonymKey = optionalBool(params, QStringLiteral("pseudonym_key"));
    auto origin = optionalOrigin(params);
    if (!name || !pseudonymKey || !origin)
        return fail(!name ? name.error() : !pseudonymKey ? pseudonymKey.error() : origin.error());
    if (*pseudonymKey)
        CORDON_TRY(context.manager.removePseudonymKey(*name));
    else
        CORDON_TRY(context.manager.removeSecret(*name, *origin));
    return QJsonObject{};
}

} // namespace

void addSecretMethods(MethodTable &table)
{
    table.add(QStringLiteral("secret.list"), {}, list);
    table.add(QStringLiteral("secret.set"),
              {QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("origin")}, set);
    table.add(QStringLiteral("secret.remove"),
              {QStringLiteral("name"), QStringLiteral("pseudonym_key"), QStringLiteral("origin")}, remove);
}

} // namespace Cordon::Api
