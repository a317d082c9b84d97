// The one word table of every settings enum: each value's word reads back as that value, words are unique per
// enum and stay what settings files, the command line and the protocol already hold, unknown words are refused,
// and the old conversion functions keep their case rules.
#include "approval/approvalpolicy.h"
#include "engine/hardeningprofile.h"
#include "runtime/runtimekind.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/sandboxconfig.h"
#include "support/vocabulary.h"

#include <QSet>
#include <QtTest>

using namespace zeus;

namespace {

QStringList list(std::initializer_list<const char*> words) {
    QStringList out;
    for (const char* word : words) {
        out << QString::fromLatin1(word);
    }
    return out;
}

// word -> enum -> word for every value, unique words, nothing else accepted.
template <typename E>
void checkTable(const QStringList& expected) {
    const QStringList& words = wordsOf<E>();
    QCOMPARE(words, expected);
    QCOMPARE(QSet<QString>(words.cbegin(), words.cend()).size(), words.size());
    const QList<E> values = valuesOf<E>();
    QCOMPARE(values.size(), words.size());
    for (qsizetype i = 0; i < values.size(); ++i) {
        QCOMPARE(wordOf(values.at(i)), words.at(i));
        QCOMPARE(fromWord<E>(words.at(i)), std::optional<E>(values.at(i)));
        QCOMPARE(wordOf(*fromWord<E>(words.at(i))), words.at(i));
        // Exact by default: another case or a blank is not the word.
        QVERIFY(!fromWord<E>(words.at(i).toUpper()));
        QVERIFY(!fromWord<E>(QString(QLatin1Char(' ') + words.at(i))));
        QCOMPARE(fromWord<E>(words.at(i).toUpper(), Qt::CaseInsensitive), std::optional<E>(values.at(i)));
    }
    for (const char* unknown : {"", "-", "unknown", "bridge", "ask_all", "askall"}) {
        QVERIFY2(!fromWord<E>(QString::fromLatin1(unknown)), unknown);
    }
}

}  // namespace

class TestVocabulary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keysBecomeWords_data();
    void keysBecomeWords();
    void tables();
    void alternatives();
    void runtimeWrappersAreLenient();
    void profileWrappersAreLenient();
    void exactWrappers();
    void presetsByWord();
};

void TestVocabulary::keysBecomeWords_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("word");
    QTest::newRow("one word") << "Allowlist"
                              << "allowlist";
    QTest::newRow("two words") << "AskUnsafe"
                               << "ask-unsafe";
    QTest::newRow("three words") << "AskForAll"
                                 << "ask-for-all";
    QTest::newRow("empty") << ""
                           << "";
}

void TestVocabulary::keysBecomeWords() {
    QFETCH(QString, key);
    QFETCH(QString, word);
    QCOMPARE(vocabulary::wordFromKey(key.toLatin1().constData()), word);
}

// The words are a public interface (settings, command line, JSON, protocol): these lists never change.
void TestVocabulary::tables() {
    checkTable<RuntimeKind>(list({"apple", "docker", "podman"}));
    checkTable<RuntimePreference>(list({"auto", "apple", "docker", "podman"}));
    checkTable<HardeningProfile>(list({"standard", "hardened"}));
    checkTable<ExecMode>(list({"agent", "exec"}));
    checkTable<WorkspaceMode>(list({"direct", "review"}));
    checkTable<NetworkMode>(list({"allowlist", "none", "open"}));
    checkTable<EgressPreset>(list({"dev", "locked"}));
    checkTable<ApprovalMode>(list({"auto", "ask-unsafe", "ask-all"}));
}

void TestVocabulary::alternatives() {
    const QString orPattern = QStringLiteral("%1 or %2");
    QCOMPARE(vocabulary::joinedAlternatives(wordsOf<ApprovalMode>(), orPattern),
             QStringLiteral("auto, ask-unsafe or ask-all"));
    QCOMPARE(vocabulary::joinedAlternatives(wordsOf<ExecMode>(), orPattern), QStringLiteral("agent or exec"));
    QCOMPARE(vocabulary::joinedAlternatives(list({"one"}), orPattern), QStringLiteral("one"));
    QCOMPARE(vocabulary::joinedAlternatives({}, orPattern), QString());
}

// Settings have always read the runtime leniently: any case, blanks around, empty meaning auto.
void TestVocabulary::runtimeWrappersAreLenient() {
    for (const RuntimePreference preference : valuesOf<RuntimePreference>()) {
        QCOMPARE(runtimePreferenceToString(preference), wordOf(preference));
        QCOMPARE(runtimePreferenceFromString(wordOf(preference)), std::optional<RuntimePreference>(preference));
    }
    QCOMPARE(runtimePreferenceFromString(u""), std::optional<RuntimePreference>(RuntimePreference::Auto));
    QCOMPARE(runtimePreferenceFromString(u"  "), std::optional<RuntimePreference>(RuntimePreference::Auto));
    QCOMPARE(runtimePreferenceFromString(u" Docker "), std::optional<RuntimePreference>(RuntimePreference::Docker));
    QCOMPARE(runtimePreferenceFromString(u"AUTO"), std::optional<RuntimePreference>(RuntimePreference::Auto));
    QVERIFY(!runtimePreferenceFromString(u"lxc"));
    for (const RuntimeKind kind : runtimePriorityOrder()) {
        QCOMPARE(runtimeKindFromString(runtimeKindToString(kind)), std::optional<RuntimeKind>(kind));
    }
    QCOMPARE(runtimeKindFromString(u" PODMAN"), std::optional<RuntimeKind>(RuntimeKind::Podman));
    QVERIFY(!runtimeKindFromString(u"auto"));
    QVERIFY(!runtimeKindFromString(u""));
}

void TestVocabulary::profileWrappersAreLenient() {
    QCOMPARE(hardeningProfileName(HardeningProfile::Standard), QStringLiteral("standard"));
    QCOMPARE(hardeningProfileName(HardeningProfile::Hardened), QStringLiteral("hardened"));
    QCOMPARE(parseHardeningProfile(QStringLiteral(" Hardened\n")),
             std::optional<HardeningProfile>(HardeningProfile::Hardened));
    QVERIFY(!parseHardeningProfile(QString()));
    QVERIFY(!parseHardeningProfile(QStringLiteral("open")));
}

// The modes have always been read exactly as written.
void TestVocabulary::exactWrappers() {
    for (const ExecMode mode : valuesOf<ExecMode>()) {
        QCOMPARE(execModeFromName(execModeName(mode)), std::optional<ExecMode>(mode));
    }
    for (const WorkspaceMode mode : valuesOf<WorkspaceMode>()) {
        QCOMPARE(workspaceModeFromName(workspaceModeName(mode)), std::optional<WorkspaceMode>(mode));
    }
    for (const NetworkMode mode : valuesOf<NetworkMode>()) {
        QCOMPARE(networkModeFromName(networkModeName(mode)), std::optional<NetworkMode>(mode));
    }
    for (const ApprovalMode mode : valuesOf<ApprovalMode>()) {
        QCOMPARE(approvalModeFromName(approvalModeName(mode)), std::optional<ApprovalMode>(mode));
    }
    QCOMPARE(approvalModeNames(), wordsOf<ApprovalMode>());
    QVERIFY(!execModeFromName(QStringLiteral("Agent")));
    QVERIFY(!workspaceModeFromName(QStringLiteral("Review")));
    QVERIFY(!networkModeFromName(QStringLiteral(" none")));
    QVERIFY(!approvalModeFromName(QStringLiteral("ASK-ALL")));
}

void TestVocabulary::presetsByWord() {
    QCOMPARE(EgressPolicy::presetNames(), wordsOf<EgressPreset>());
    QCOMPARE(EgressPolicy::presetRules(QStringLiteral("dev")), EgressPolicy::presetRules(EgressPreset::Dev));
    QVERIFY(!EgressPolicy::presetRules(EgressPreset::Dev).isEmpty());
    QVERIFY(EgressPolicy::presetRules(EgressPreset::Locked).isEmpty());
    QVERIFY(EgressPolicy::presetRules(QStringLiteral("everything")).isEmpty());
    QStringList errors;
    const EgressPolicy policy =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("everything"), {}, {}, {}, &errors);
    QCOMPARE(policy.preset, EgressPreset::Locked);
    QCOMPARE(errors, QStringList{QStringLiteral("'everything' is not a preset (dev, locked): using locked")});
}

QTEST_GUILESS_MAIN(TestVocabulary)
#include "tst_vocabulary.moc"
