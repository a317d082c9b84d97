// SettingsMigration: version 1's one-value stores become settings arrays as they are (the views sanitise on
// read), the old keys go, the format is recorded, and a store at the current format is not touched.
#include "settings/folderpolicies.h"
#include "settings/networksettings.h"
#include "settings/settingsmigration.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using zeus::FolderPolicies;
using zeus::SettingsMigration;

class TestSettingsMigration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void freshStoreRecordsTheFormatOnce() {
        QSettings store(path(), QSettings::IniFormat);
        QCOMPARE(SettingsMigration::run(store), 1);
        QCOMPARE(store.value(SettingsMigration::kFormatVersion).toInt(), SettingsMigration::kCurrentFormat);
        QCOMPARE(store.allKeys(), QStringList{SettingsMigration::kFormatVersion});
        QCOMPARE(SettingsMigration::run(store), SettingsMigration::kCurrentFormat);
        QCOMPARE(store.allKeys(), QStringList{SettingsMigration::kFormatVersion});
    }

    void version1Values_data() {
        QTest::addColumn<QString>("oldKey");
        QTest::addColumn<QString>("oldValue");  // as a hand edit or version 1 left it
        QTest::addColumn<QString>("array");
        QTest::addColumn<QString>("folders");  // in the array, in order, comma-separated
        QTest::newRow("modes: sorted by folder, every word kept") << "workspaces/modes"
                                                                  << R"({"/b":"review","/a":"copy"})"
                                                                  << "workspaces/folderModes"
                                                                  << "/a,/b";
        QTest::newRow("modes: a value that is not text held nothing") << "workspaces/modes"
                                                                      << R"({"/a":["review"],"/b":"review"})"
                                                                      << "workspaces/folderModes"
                                                                      << "/b";
        QTest::newRow("modes: not JSON") << "workspaces/modes"
                                         << "review"
                                         << "workspaces/folderModes"
                                         << "";
        QTest::newRow("modes: a list, not an object") << "workspaces/modes"
                                                      << R"(["/a"])"
                                                      << "workspaces/folderModes"
                                                      << "";
        QTest::newRow("approval: a damaged folder stays listed") << "approval/folders"
                                                                 << R"({"/q":[1,2],"/p":{"mode":"ask-all"}})"
                                                                 << "approval/policies"
                                                                 << "/p,/q";
        QTest::newRow("approval: not JSON") << "approval/folders"
                                            << "{"
                                            << "approval/policies"
                                            << "";
    }

    void version1Values() {
        QFETCH(QString, oldKey);
        QFETCH(QString, oldValue);
        QFETCH(QString, array);
        QFETCH(QString, folders);
        QSettings store(path(), QSettings::IniFormat);
        store.setValue(oldKey, oldValue);
        QCOMPARE(SettingsMigration::run(store), 1);
        QVERIFY(!store.contains(oldKey));
        QStringList stored;
        const int size = store.beginReadArray(array);
        for (int i = 0; i < size; ++i) {
            store.setArrayIndex(i);
            stored << store.value(FolderPolicies::kFolderKey).toString();
        }
        store.endArray();
        QCOMPARE(stored.join(u','), folders);
    }

    // Rules keep their text and time as written; entries without a text prefix were nothing in version 1.
    void approvalRulesMoveAsWritten() {
        QSettings store(path(), QSettings::IniFormat);
        store.setValue(SettingsMigration::kVersion1ApprovalPolicies,
                       QStringLiteral(R"({"/p":{"mode":"sometimes","allow":[7,{"prefix":""},{"prefix":"ls; rm x"},)"
                                      R"({"prefix":"ls","lastMatched":"2026-11-30T12:00:00.000Z"}],"deny":"rm"}})"));
        SettingsMigration::run(store);
        const QList<FolderPolicies::StoredApproval> approvals = FolderPolicies::readApprovals(store);
        QCOMPARE(approvals.size(), 1);
        QCOMPARE(approvals.at(0).mode, QStringLiteral("sometimes"));
        QCOMPARE(approvals.at(0).allow.size(), 2);
        QCOMPARE(approvals.at(0).allow.at(0).prefix, QStringLiteral("ls; rm x"));
        QVERIFY(approvals.at(0).allow.at(0).lastMatched.isEmpty());
        QCOMPARE(approvals.at(0).allow.at(1).lastMatched, QStringLiteral("2026-11-30T12:00:00.000Z"));
        QVERIFY(approvals.at(0).deny.isEmpty());
    }

    void folderAllowMapBecomesAnArray() {
        QSettings store(path(), QSettings::IniFormat);
        store.setValue(SettingsMigration::kVersion1FolderAllow,
                       QVariantMap{{QStringLiteral("/b"), QStringList{QStringLiteral("x.example")}},
                                   {QStringLiteral("/a"),
                                    QStringList{QStringLiteral("y.example"), QStringLiteral("z.example:443")}}});
        SettingsMigration::run(store);
        QVERIFY(!store.contains(SettingsMigration::kVersion1FolderAllow));
        const zeus::NetworkSettings::FolderRules expected{
            {QStringLiteral("/a"), {QStringLiteral("y.example"), QStringLiteral("z.example:443")}},
            {QStringLiteral("/b"), {QStringLiteral("x.example")}}};
        QCOMPARE(zeus::NetworkSettings::readFolderRules(store), expected);
    }

    void currentFormatIsNotTouched() {
        QSettings store(path(), QSettings::IniFormat);
        store.setValue(SettingsMigration::kFormatVersion, SettingsMigration::kCurrentFormat);
        store.setValue(SettingsMigration::kVersion1WorkspaceModes, QStringLiteral(R"({"/a":"review"})"));
        QCOMPARE(SettingsMigration::run(store), SettingsMigration::kCurrentFormat);
        QVERIFY(store.contains(SettingsMigration::kVersion1WorkspaceModes));
        QCOMPARE(store.beginReadArray(FolderPolicies::kWorkspaceModes), 0);
        store.endArray();
    }

private:
    QString path() const { return m_dir->filePath(QStringLiteral("settings.ini")); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_GUILESS_MAIN(TestSettingsMigration)
#include "tst_settingsmigration.moc"
