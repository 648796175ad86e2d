// SPDX-License-Identifier: MIT
// The host's secret store on a real file: values survive a reopen, the file is the owner's alone (0600,
// replaced whole), a file others may read or one Cordon did not write is refused, fingerprints are keyed,
// and a policy's secrets resolve into the run's environment.
#include "sandbox/secrets/secretinjection.h"
#include "sandbox/secrets/secretstore.h"

#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QObject>
#include <QTemporaryDir>

#include <sys/stat.h>

#include <algorithm>

using namespace Cordon;
using Cordon::Secrets::SecretStore;

namespace {

// A vault in memory, as the desktop keyring behaves for the store (tst_secretkeyring has the real one).
class MemoryVault final : public Secrets::SecretVault
{
public:
    bool open = true;
    std::map<std::string, std::string> values; // "<store id>/<name>"

    bool usable() override { return open; }
    std::string kind() const override { return "memory"; }
    Result<std::string> read(const std::string &storeId, const std::string &name) override
    {
        const auto found = values.find(storeId + "/" + name);
        if (found == values.end())
            return fail("secrets.keyring_missing", "no value for " + name);
        return found->second;
    }
    Result<> write(const std::string &storeId, const std::string &name, std::string_view value) override
    {
        if (!open)
            return fail(std::string("secrets.keyring_locked"), std::string("locked"));
        values[storeId + "/" + name] = std::string(value);
        return {};
    }
    Result<> erase(const std::string &storeId, const std::string &name) override
    {
        if (!open)
            return fail(std::string("secrets.keyring_locked"), std::string("locked"));
        values.erase(storeId + "/" + name);
        return {};
    }
};

QByteArray fileBytes(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestSecretStore final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const char *name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

private Q_SLOTS:
    void valuesSurviveAReopenInAPrivateFile()
    {
        const std::string file = path("store/secrets.json");
        auto store = SecretStore::open(file);
        QVERIFY_RESULT(store);
        QVERIFY(store->list().empty());
        QVERIFY(!QFile::exists(QString::fromStdString(file))); // nothing written before the first set
        QVERIFY_RESULT(store->set("API_TOKEN", "value-with \"quotes\" and \xc3\xa9", 1000));
        QVERIFY_RESULT(store->set("OTHER", "other-value", 2000));
        QVERIFY_RESULT(store->set("API_TOKEN", "replaced-value", 3000));

        struct stat info
        {
        };
        QCOMPARE(::stat(file.c_str(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QCOMPARE(QDir(QString::fromStdString(file)).entryList(QDir::Files | QDir::Hidden).size(), 0);
        // Nothing left beside it: each write is one new file renamed over the old one.
        QCOMPARE(QDir(m_dir.filePath(QStringLiteral("store"))).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("secrets.json")});

        auto reopened = SecretStore::open(file);
        QVERIFY_RESULT(reopened);
        QCOMPARE(reopened->value("API_TOKEN").value_or(""), std::string("replaced-value"));
        const auto listed = reopened->list();
        QCOMPARE(listed.size(), std::size_t(2));
        QCOMPARE(listed[0].name, std::string("API_TOKEN"));
        QCOMPARE(listed[0].setAtMs, std::int64_t(3000));
        QCOMPARE(listed[0].fingerprint, store->fingerprint("replaced-value"));

        QVERIFY_RESULT(reopened->remove("OTHER"));
        QCOMPARE(SecretStore::open(file)->list().size(), std::size_t(1));
        const auto missing = reopened->remove("OTHER");
        QVERIFY(!missing);
        QCOMPARE(missing.error().code(), std::string("secrets.not_found"));
        QVERIFY(missing.error().message().find("cordon secret set OTHER") != std::string::npos);
    }

    void fingerprintsAreKeyedPerStore()
    {
        auto one = SecretStore::open(path("one.json"));
        auto two = SecretStore::open(path("two.json"));
        QVERIFY_RESULT(one);
        QVERIFY_RESULT(two);
        QVERIFY_RESULT(one->set("A_KEY", "same-value", 1));
        QVERIFY_RESULT(two->set("A_KEY", "same-value", 1));
        QCOMPARE(one->fingerprint("same-value"),
                 SecretStore::open(path("one.json"))->fingerprint("same-value"));
        QVERIFY(one->fingerprint("same-value") != two->fingerprint("same-value"));
        QVERIFY(one->fingerprint("same-value") != one->fingerprint("other-value"));
        QVERIFY(QString::fromStdString(one->fingerprint("same-value"))
                    .startsWith(QStringLiteral("hmac-sha256:")));
        // Neither the value nor its plain hash is the fingerprint.
        QVERIFY(one->fingerprint("same-value").find("same-value") == std::string::npos);
    }

    void badNamesAndValuesAreRefusedAndNothingChanges()
    {
        auto store = SecretStore::open(path("bad.json"));
        QVERIFY_RESULT(store);
        const std::pair<std::string, std::string> cases[] = {
            {"1A", "long-enough"},
            {"A-B", "long-enough"},
            {"", "long-enough"},
            {std::string(129, 'A'), "long-enough"},
        };
        for (const auto &[name, value] : cases) {
            const auto set = store->set(name, value, 1);
            QVERIFY(!set);
            QCOMPARE(set.error().code(), std::string("secrets.bad_name"));
        }
        for (const std::string &value :
             {std::string("short"), std::string(4097, 'v'), std::string("with\0nul-byte", 13),
              std::string("latin1 \xe9 value")}) {
            const auto set = store->set("NAME", value, 1);
            QVERIFY(!set);
            QCOMPARE(set.error().code(), std::string("secrets.bad_value"));
            QVERIFY(set.error().message().find(value.substr(0, 5)) == std::string::npos || value == "short");
        }
        QVERIFY(store->list().empty());
        QVERIFY(!QFile::exists(QString::fromStdString(path("bad.json"))));
    }

    void unsafeOrForeignFilesAreRefused()
    {
        const std::string file = path("unsafe.json");
        auto store = SecretStore::open(file);
        QVERIFY_RESULT(store);
        QVERIFY_RESULT(store->set("A_KEY", "some-value", 1));
        QCOMPARE(::chmod(file.c_str(), 0640), 0);
        auto loose = SecretStore::open(file);
        QVERIFY(!loose);
        QCOMPARE(loose.error().code(), std::string("secrets.store_unsafe"));
        QCOMPARE(::chmod(file.c_str(), 0600), 0);

        const std::string link = path("link.json");
        QCOMPARE(::symlink(file.c_str(), link.c_str()), 0);
        auto linked = SecretStore::open(link);
        QVERIFY(!linked);
        QCOMPARE(linked.error().code(), std::string("secrets.store_unsafe"));

        const std::string garbage = path("garbage.json");
        QFile junk(QString::fromStdString(garbage));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write(R"({"format": 1, "fingerprint_key": "00", "secrets": {}})");
        junk.close();
        QCOMPARE(::chmod(garbage.c_str(), 0600), 0);
        auto foreign = SecretStore::open(garbage);
        QVERIFY(!foreign);
        QCOMPARE(foreign.error().code(), std::string("secrets.store_corrupt"));
    }

    void aStoreMadeWithAUsableVaultKeepsItsValuesThere()
    {
        MemoryVault vault;
        const std::string file = path("vaulted.json");
        auto store = SecretStore::open(file, &vault);
        QVERIFY_RESULT(store);
        QCOMPARE(store->valuesIn(), std::string("memory"));
        QVERIFY_RESULT(store->set("API_TOKEN", "vaulted-value-1", 1000));
        QCOMPARE(vault.values.size(), std::size_t(1));
        QCOMPARE(vault.values.begin()->second, std::string("vaulted-value-1"));
        QVERIFY(!fileBytes(file).contains("vaulted-value-1"));
        QVERIFY(fileBytes(file).contains(QByteArray::fromStdString(store->fingerprint("vaulted-value-1"))));

        // Reopened: where the values are is the file's to say, not the caller's.
        auto reopened = SecretStore::open(file, &vault);
        QVERIFY_RESULT(reopened);
        QCOMPARE(reopened->value("API_TOKEN").value(), std::string("vaulted-value-1"));
        QCOMPARE(reopened->list().at(0).fingerprint, store->fingerprint("vaulted-value-1"));
        // Without the vault (the launcher): the names are there, the values are not.
        auto without = SecretStore::open(file);
        QVERIFY_RESULT(without);
        QCOMPARE(without->list().size(), std::size_t(1));
        QCOMPARE(without->value("API_TOKEN").error().code(), std::string("secrets.keyring_unavailable"));
        QCOMPARE(without->set("OTHER", "other-value-1", 1).error().code(),
                 std::string("secrets.keyring_unavailable"));

        // A value changed in the vault behind the store's back is refused, not given to a run.
        vault.values.begin()->second = "swapped-value-2";
        QCOMPARE(reopened->value("API_TOKEN").error().code(), std::string("secrets.keyring_changed"));
        QVERIFY(reopened->value("API_TOKEN").error().message().find("swapped") == std::string::npos);

        // A locked vault changes nothing, in it or in the file.
        vault.open = false;
        const QByteArray before = fileBytes(file);
        QCOMPARE(reopened->set("API_TOKEN", "new-value-123", 2).error().code(),
                 std::string("secrets.keyring_locked"));
        QCOMPARE(reopened->remove("API_TOKEN").error().code(), std::string("secrets.keyring_locked"));
        QCOMPARE(fileBytes(file), before);
        vault.open = true;
        QVERIFY_RESULT(reopened->remove("API_TOKEN"));
        QVERIFY(vault.values.empty());

        // A store made while the vault is locked keeps its values in its file, from then on.
        vault.open = false;
        auto fallback = SecretStore::open(path("fallback.json"), &vault);
        QVERIFY_RESULT(fallback);
        QVERIFY(fallback->valuesInFile());
        QVERIFY_RESULT(fallback->set("API_TOKEN", "file-value-1", 1));
        vault.open = true;
        auto stillFile = SecretStore::open(path("fallback.json"), &vault);
        QVERIFY_RESULT(stillFile);
        QVERIFY(stillFile->valuesInFile());
        QCOMPARE(stillFile->value("API_TOKEN").value(), std::string("file-value-1"));
        QVERIFY(vault.values.empty());

        // Two stores never share a vault entry.
        auto second = SecretStore::open(path("second.json"), &vault);
        QVERIFY_RESULT(second);
        QVERIFY(second->vaultId() != reopened->vaultId());
    }

    // A value replaced or removed while containers that received it live is kept for them (a program may
    // have saved it), where the values are and across a reopen, and dropped once none of them lives.
    void previousValuesAreKeptForTheContainersThatHadThem_data()
    {
        QTest::addColumn<bool>("vaulted");
        QTest::newRow("file") << false;
        QTest::newRow("vault") << true;
    }

    void previousValuesAreKeptForTheContainersThatHadThem()
    {
        QFETCH(bool, vaulted);
        MemoryVault vault;
        const std::string file = path(vaulted ? "retired-vault.json" : "retired-file.json");
        auto store = SecretStore::open(file, vaulted ? &vault : nullptr);
        QVERIFY_RESULT(store);
        QVERIFY_RESULT(store->set("TOKEN", "first-value-1", 1000));
        QVERIFY_RESULT(store->set("TOKEN", "second-value-2", 2000, {"c2", "c1"}));
        QVERIFY_RESULT(
            store->set("TOKEN", "second-value-2", 2500, {"c3"})); // the same value: nothing replaced
        QVERIFY_RESULT(store->set("TOKEN", "third-value-3", 3000, {"c2"}));
        QVERIFY_RESULT(store->set("OTHER", "other-value-1", 3000));
        QVERIFY_RESULT(store->remove("OTHER", {"c3"}));
        // Where the values are: in the vault, the file names only fingerprints.
        QCOMPARE(fileBytes(file).contains("first-value-1"), !vaulted);

        auto reopened = SecretStore::open(file, vaulted ? &vault : nullptr);
        QVERIFY_RESULT(reopened);
        const auto valuesOf = [&](const std::string &holder) {
            std::vector<std::string> values;
            const auto held = reopened->retiredValuesOf(holder);
            for (const Secrets::RetiredValue &retired : held.value())
                values.push_back(retired.name + "=" + retired.value);
            std::sort(values.begin(), values.end());
            return values;
        };
        QCOMPARE(valuesOf("c1"), std::vector<std::string>{"TOKEN=first-value-1"});
        QCOMPARE(valuesOf("c2"), (std::vector<std::string>{"TOKEN=first-value-1", "TOKEN=second-value-2"}));
        QCOMPARE(valuesOf("c3"), std::vector<std::string>{"OTHER=other-value-1"});
        QVERIFY(valuesOf("c4").empty());
        QCOMPARE(reopened->value("TOKEN").value(), std::string("third-value-3"));

        // c1 and c3 removed: what only they held goes, from the file and the vault.
        QVERIFY_RESULT(reopened->keepRetiredFor({"c2", "c9"}));
        QVERIFY(valuesOf("c1").empty());
        QCOMPARE(valuesOf("c2").size(), std::size_t(2));
        QVERIFY(!fileBytes(file).contains("other-value-1"));
        QVERIFY_RESULT(reopened->keepRetiredFor({}));
        QVERIFY(!fileBytes(file).contains("first-value-1"));
        QVERIFY(SecretStore::open(file, vaulted ? &vault : nullptr)->retiredValuesOf("c2").value().empty());
        if (vaulted)
            QCOMPARE(vault.values.size(), std::size_t(1)); // TOKEN's current value alone
    }

    void pseudonymKeysAreMadeOnceKeptPrivateAndNeverSecrets()
    {
        const std::string file = path("keys/secrets.json");
        auto store = SecretStore::open(file);
        QVERIFY_RESULT(store);
        auto made = store->pseudonymKey("default", 1000);
        QVERIFY_RESULT(made);
        QCOMPARE(made->bytes.size(), Secrets::PseudonymKeyBytes);
        QCOMPARE(made->id, Secrets::pseudonymKeyId(made->bytes));
        QVERIFY(made->id.rfind("pk-", 0) == 0);
        // Asked again, and after a reopen: the same key, so pseudonyms stay the same across uploads.
        QCOMPARE(store->pseudonymKey("default", 2000)->bytes, made->bytes);
        auto reopened = SecretStore::open(file);
        QVERIFY_RESULT(reopened);
        QCOMPARE(reopened->pseudonymKey("default", 3000)->bytes, made->bytes);
        QCOMPARE(reopened->pseudonymKeys().size(), std::size_t(1));
        QCOMPARE(reopened->pseudonymKeys().at(0).id, made->id);
        QCOMPARE(reopened->pseudonymKeys().at(0).createdAtMs, std::int64_t(1000));
        // Another name is another key; the file stays the owner's alone.
        auto project = reopened->pseudonymKey("project_x", 4000);
        QVERIFY_RESULT(project);
        QVERIFY(project->bytes != made->bytes);
        struct stat status
        {
        };
        QCOMPARE(::stat(file.c_str(), &status), 0);
        QCOMPARE(status.st_mode & 0777, 0600u);
        // A key is not a secret: no policy can name it, so no run can receive it.
        QVERIFY(!reopened->contains("default"));
        QCOMPARE(reopened->value("default").error().code(), std::string("secrets.not_found"));
        QVERIFY(reopened->list().empty());
        QCOMPARE(reopened->pseudonymKey("bad name", 1).error().code(), std::string("secrets.bad_name"));
        // Setting and removing secrets keeps the keys.
        QVERIFY_RESULT(reopened->set("API_TOKEN", "token-value-1", 5000));
        QVERIFY_RESULT(reopened->remove("API_TOKEN"));
        auto again = SecretStore::open(file);
        QVERIFY_RESULT(again);
        QCOMPARE(again->pseudonymKeys().size(), std::size_t(2));
        QCOMPARE(again->pseudonymKey("project_x", 1)->bytes, project->bytes);
        // Forgotten, a key is made anew at its next use.
        QVERIFY_RESULT(again->removePseudonymKey("project_x"));
        QCOMPARE(again->removePseudonymKey("project_x").error().code(), std::string("secrets.not_found"));
        QVERIFY(again->pseudonymKey("project_x", 2)->bytes != project->bytes);

        // A key whose id does not match is a file Cordon did not write.
        QByteArray text = fileBytes(file);
        text.replace(QByteArray::fromStdString(made->id), "pk-0000000000000000");
        QFile edited(QString::fromStdString(file));
        QVERIFY(edited.open(QIODevice::WriteOnly | QIODevice::Truncate));
        edited.write(text);
        edited.close();
        QCOMPARE(SecretStore::open(file).error().code(), std::string("secrets.store_corrupt"));
    }

    void aVaultHoldsPseudonymKeysApartFromSecrets()
    {
        MemoryVault vault;
        const std::string file = path("vaulted-keys.json");
        auto store = SecretStore::open(file, &vault);
        QVERIFY_RESULT(store);
        auto made = store->pseudonymKey("default", 1);
        QVERIFY_RESULT(made);
        QCOMPARE(vault.values.size(), std::size_t(1));
        QVERIFY(vault.values.begin()->first.find("/pseudonym-key:default") != std::string::npos);
        QVERIFY(!fileBytes(file).contains(QByteArray::fromStdString(made->bytes).toHex()));
        auto reopened = SecretStore::open(file, &vault);
        QVERIFY_RESULT(reopened);
        QCOMPARE(reopened->pseudonymKey("default", 2)->bytes, made->bytes);
        // Changed in the keyring behind the store's back: refused, never a different key used silently.
        vault.values.begin()->second = std::string(64, 'a');
        QCOMPARE(reopened->pseudonymKey("default", 3).error().code(), std::string("secrets.keyring_changed"));
        // Removed outside Cordon: a clear error naming the way out, then removal and a new key.
        vault.values.clear();
        const auto missing = reopened->pseudonymKey("default", 4);
        QCOMPARE(missing.error().code(), std::string("secrets.keyring_missing"));
        QVERIFY(missing.error().message().find("cordon secret rm --pseudonym-key default") !=
                std::string::npos);
        QVERIFY_RESULT(reopened->removePseudonymKey("default"));
        QVERIFY_RESULT(reopened->pseudonymKey("default", 5));
        // A key the keyring holds that a (restored) store file does not record is never replaced unasked.
        auto other = SecretStore::open(path("vaulted-keys-2.json"), &vault);
        QVERIFY_RESULT(other);
        vault.values[other->vaultId() + "/pseudonym-key:default"] = std::string(64, 'b');
        QCOMPARE(other->pseudonymKey("default", 6).error().code(), std::string("secrets.keyring_changed"));
        QCOMPARE(vault.values[other->vaultId() + "/pseudonym-key:default"], std::string(64, 'b'));
        QVERIFY_RESULT(other->removePseudonymKey("default"));
        QVERIFY_RESULT(other->pseudonymKey("default", 7));
    }

    // The audit's signing key: made once per user, kept where the values are, never a secret or a pseudonym
    // key, and a keyring that changed it is caught.
    void theAuditSigningKeyIsMadeOnceAndKeptPrivate()
    {
        const std::string file = path("signing/secrets.json");
        auto store = SecretStore::open(file);
        QVERIFY_RESULT(store);
        QCOMPARE(store->auditSigningKeyCreatedAt(), std::int64_t(0));
        auto seed = store->auditSigningSeed(1000);
        QVERIFY_RESULT(seed);
        QCOMPARE(seed->size(), std::size_t(32));
        QCOMPARE(*store->auditSigningSeed(2000), *seed);
        auto reopened = SecretStore::open(file);
        QVERIFY_RESULT(reopened);
        QCOMPARE(*reopened->auditSigningSeed(3000), *seed);
        QCOMPARE(reopened->auditSigningKeyCreatedAt(), std::int64_t(1000));
        QVERIFY(reopened->list().empty());
        QVERIFY(reopened->pseudonymKeys().empty());
        struct stat status
        {
        };
        QCOMPARE(::stat(file.c_str(), &status), 0);
        QCOMPARE(status.st_mode & 0777, 0600u);
        // Another store (another user's data folder) has another key.
        auto other = SecretStore::open(path("signing-2/secrets.json"));
        QVERIFY_RESULT(other);
        QVERIFY(*other->auditSigningSeed(1) != *seed);

        MemoryVault vault;
        auto vaulted = SecretStore::open(path("signing-vault.json"), &vault);
        QVERIFY_RESULT(vaulted);
        auto kept = vaulted->auditSigningSeed(1);
        QVERIFY_RESULT(kept);
        QCOMPARE(vault.values.size(), std::size_t(1));
        QVERIFY(vault.values.begin()->first.find("/audit-signing-key") != std::string::npos);
        QVERIFY(!fileBytes(path("signing-vault.json")).contains(QByteArray::fromStdString(*kept).toHex()));
        vault.values.begin()->second = std::string(64, 'a');
        QCOMPARE(vaulted->auditSigningSeed(2).error().code(), std::string("secrets.keyring_changed"));
    }

    void aPolicysSecretsResolveIntoTheEnvironment()
    {
        auto store = SecretStore::open(path("resolve.json"));
        QVERIFY_RESULT(store);
        QVERIFY_RESULT(store->set("API_TOKEN", "token-value-1", 1));
        QVERIFY_RESULT(store->set("UNUSED", "never-given-out", 1));
        const std::vector<Policy::SecretRef> refs{{"API_TOKEN", "TOKEN"}, {"API_TOKEN", "SECOND"}};
        auto resolved = Secrets::resolveSecrets(*store, refs);
        QVERIFY_RESULT(resolved);
        std::vector<std::string> env{"PATH=/usr/bin", "TOKEN=from-elsewhere"};
        Secrets::injectSecrets(env, *resolved);
        std::sort(env.begin(), env.end());
        QCOMPARE(env,
                 (std::vector<std::string>{"PATH=/usr/bin", "SECOND=token-value-1", "TOKEN=token-value-1"}));
        QCOMPARE(resolved->at(0).fingerprint, store->fingerprint("token-value-1"));

        const auto missing = Secrets::resolveSecrets(*store, {{"NOT_SET", "NOT_SET"}});
        QVERIFY(!missing);
        QCOMPARE(missing.error().code(), std::string("secrets.not_found"));
        QCOMPARE(Secrets::maskerFor(*resolved).maskAll("x token-value-1 y"),
                 std::string("x [secret:API_TOKEN] y"));
    }
};

QTEST_GUILESS_MAIN(TestSecretStore)
#include "tst_secretstore.moc"
