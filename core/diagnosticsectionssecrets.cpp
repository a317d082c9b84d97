#include "diagnosticsections.h"
#include "secrets/interceptca.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>

namespace zeus {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::DiagnosticSections", text);
}

QString caStateWord(DiagnosticSections::SecretsFacts::Ca ca) {
    switch (ca) {
        case DiagnosticSections::SecretsFacts::Ca::NotRead:
            return QStringLiteral("not_read");
        case DiagnosticSections::SecretsFacts::Ca::Loading:
            return QStringLiteral("loading");
        case DiagnosticSections::SecretsFacts::Ca::Loaded:
            return QStringLiteral("loaded");
        case DiagnosticSections::SecretsFacts::Ca::Failed:
            return QStringLiteral("failed");
    }
    return {};
}

}  // namespace

DiagnosticSections::SecretsFacts DiagnosticSections::SecretsFacts::from(const QStringList& stored,
                                                                        const SandboxConfig& config) {
    SecretsFacts facts;
    facts.stored = stored;
    for (auto it = config.secretBindings.cbegin(); it != config.secretBindings.cend(); ++it) {
        facts.bound.insert(it.key(), it->ruleTexts());
    }
    if (config.interceptCa != nullptr && config.interceptCa->isLoaded()) {
        facts.ca = Ca::Loaded;
        facts.caFingerprint = config.interceptCa->fingerprint();
    }
    return facts;
}

DiagnosticSection DiagnosticSections::secrets(const SecretsFacts& facts) {
    QStringList boundNames = facts.bound.keys();
    std::sort(boundNames.begin(), boundNames.end());
    QStringList environment;
    for (const QString& name : facts.stored) {
        if (!facts.bound.contains(name)) {
            environment << name;
        }
    }
    QJsonObject bound;
    QStringList boundLines;
    for (const QString& name : std::as_const(boundNames)) {
        const QStringList& rules = facts.bound[name];
        bound.insert(name, QJsonArray::fromStringList(rules));
        // Not "NAME: …": support's redaction takes "TOKEN: word" for a credential (DiagnosticsPanel::redact).
        boundLines << tr("%1 goes only to %2")
                          .arg(name, rules.isEmpty() ? tr("no host (its placeholder goes nowhere)")
                                                     : rules.join(QStringLiteral(", ")));
    }
    QJsonObject ca;
    ca.insert(QStringLiteral("state"), caStateWord(facts.ca));
    ca.insert(QStringLiteral("sha256"), facts.caFingerprint);
    ca.insert(QStringLiteral("error"), facts.caError);
    QJsonObject value;
    value.insert(QStringLiteral("stored"), QJsonArray::fromStringList(facts.stored));
    value.insert(QStringLiteral("bound"), bound);
    value.insert(QStringLiteral("environment"), QJsonArray::fromStringList(environment));
    value.insert(QStringLiteral("intercept_ca"), ca);

    QString caText;
    switch (facts.ca) {
        case SecretsFacts::Ca::NotRead:
            caText = tr("not read here");
            break;
        case SecretsFacts::Ca::Loading:
            caText = tr("waiting for the keychain");
            break;
        case SecretsFacts::Ca::Loaded:
            caText = tr("SHA-256 %1").arg(facts.caFingerprint);
            break;
        case SecretsFacts::Ca::Failed:
            caText = tr("not available: %1").arg(facts.caError);
            break;
    }
    QStringList lines;
    lines << tr("Stored: %1").arg(facts.stored.isEmpty() ? tr("none") : facts.stored.join(QStringLiteral(", ")));
    lines << boundLines;
    lines << tr("Into the command's environment when allowed (redacted from the output): %1")
                 .arg(environment.isEmpty() ? tr("none") : environment.join(QStringLiteral(", ")));
    if (!boundNames.isEmpty() || facts.ca != SecretsFacts::Ca::NotRead) {
        lines << tr("Interception CA: %1").arg(caText);
    }

    DiagnosticCheck check;
    check.id = QStringLiteral("bound_secrets");
    if (boundNames.isEmpty()) {
        check.level = DiagnosticCheck::Level::Ok;
        check.summary =
            tr("No secret is bound to hosts: a secret a command is allowed goes into its environment and "
               "is redacted from its output.");
    } else if (facts.ca == SecretsFacts::Ca::Failed) {
        check.level = DiagnosticCheck::Level::Warning;
        check.summary =
            QCoreApplication::translate("zeus::DiagnosticSections",
                                        "%n secret(s) bound to hosts, but the interception CA is not available: %1",
                                        nullptr, int(boundNames.size()))
                .arg(facts.caError);
        check.action =
            tr("Unlock the keychain and restart Zeus Desktop. Until then commands get the placeholders, "
               "which nothing replaces: requests that need these secrets fail, and no value is sent.");
    } else {
        check.level = DiagnosticCheck::Level::Ok;
        check.summary = QCoreApplication::translate(
                            "zeus::DiagnosticSections",
                            "%n secret(s) bound to hosts: their values never enter the sandbox (interception CA %1).",
                            nullptr, int(boundNames.size()))
                            .arg(caText);
    }
    return {QStringLiteral("secrets"), tr("Secrets"), value, lines.join(QLatin1Char('\n')), {check}};
}

}  // namespace zeus
