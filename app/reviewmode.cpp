// zeus-desktop --changes [--json] [SESSION] | --apply SESSION [PATH…] | --discard SESSION: the review copies of
// SPEC §10 from the command line. They work on the records in the app's data folder and the engine each record
// names, whether or not the tray app runs (the two share the records under a lock). Exit 0 done; 1 an error (its
// message on stderr); 2 a usage error (no such session, a PATH that is not a change); 3 --apply left conflicts or
// refusals (listed).
#include "engine/containerruntime.h"
#include "modes.h"
#include "review/gitbundle.h"
#include "review/reviewstore.h"
#include "sandbox/review/reviewcopy.h"
#include "sandbox/review/reviewservice.h"
#include "sandboxsetup.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>

namespace zeus {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("main", text);
}

QJsonObject recordJson(const ReviewRecord& record) {
    return QJsonObject{{QStringLiteral("session"), record.sessionId},
                       {QStringLiteral("workspace"), record.workspace},
                       {QStringLiteral("container"), record.containerId},
                       {QStringLiteral("name"), record.containerName},
                       {QStringLiteral("engine"), record.engine},
                       {QStringLiteral("created"), record.created.toString(Qt::ISODate)},
                       // where Apply put the agent's commits last (refs/zeus/<session>/), "" before any
                       {QStringLiteral("refs"), record.fetchedRefsPrefix}};
}

QJsonObject entrySide(const ManifestEntry& entry) {
    QJsonObject side{{QStringLiteral("type"), ManifestEntry::typeName(entry.type)},
                     {QStringLiteral("mode"), QString::number(entry.mode, 8)},
                     {QStringLiteral("size"), entry.size},
                     {QStringLiteral("sha256"), QString::fromLatin1(entry.sha256)}};
    if (entry.type == ManifestEntry::Type::Symlink) {
        side.insert(QStringLiteral("target"), entry.linkTarget);
    }
    return side;
}

QJsonObject changeJson(const Change& change) {
    QJsonObject object = change.summaryJson();
    if (change.hasBefore) {
        object.insert(QStringLiteral("before"), entrySide(change.before));
    }
    if (change.hasAfter) {
        object.insert(QStringLiteral("after"), entrySide(change.after));
    }
    return object;
}

struct Found {
    ReviewRecord record;
    std::unique_ptr<ContainerRuntime> runtime;
};

// The record the SESSION argument names, with its engine; nullopt after saying why on stderr.
std::optional<Found> findRecord(const ReviewStore& store, const QString& session, QTextStream& err) {
    const std::optional<ReviewRecord> record = store.find(session);
    if (!record) {
        err << tr("No review copy is kept for session \"%1\". zeus-desktop --changes lists them.").arg(session) << '\n';
        return std::nullopt;
    }
    // This mode runs no detection, so an Apple CLI's version is not known here.
    Found found{*record, ReviewService::runtimeFor(*record, SandboxSetup::adapterFactory(DetectionResult()))};
    if (!found.runtime) {
        // NOLINTNEXTLINE(modernize-raw-string-literal): lupdate and the translation check read plain literals
        err << tr("The review copy of \"%1\" names an unknown engine \"%2\".").arg(session, record->engine) << '\n';
        return std::nullopt;
    }
    return found;
}

int listRecords(const ReviewStore& store, bool json, QTextStream& out, QTextStream& err) {
    QStringList errors;
    const QList<ReviewRecord> records = store.records(&errors);
    for (const QString& error : std::as_const(errors)) {
        err << tr("Unreadable review record: %1").arg(error) << '\n';
    }
    if (json) {
        QJsonArray array;
        for (const ReviewRecord& record : records) {
            array.append(recordJson(record));
        }
        out << QJsonDocument(QJsonObject{{QStringLiteral("reviews"), array}}).toJson(QJsonDocument::Indented);
        return 0;
    }
    if (records.isEmpty()) {
        out << tr("No review copies are kept.") << '\n';
        return 0;
    }
    for (const ReviewRecord& record : records) {
        out << record.sessionId << '\t' << record.containerId.left(12) << '\t' << record.engine << '\t'
            << record.created.toLocalTime().toString(Qt::ISODate) << '\t' << record.workspace << '\n';
    }
    return 0;
}

int listChanges(const ReviewStore& store, const QString& session, bool json, QTextStream& out, QTextStream& err) {
    const std::optional<Found> found = findRecord(store, session, err);
    if (!found) {
        return 2;
    }
    const ReviewService::ListResult result = ReviewService::listChanges(*found->runtime, store, found->record);
    if (!result.ok) {
        err << result.error << '\n';
        return 1;
    }
    if (json) {
        QJsonArray array;
        for (const Change& change : result.changes) {
            array.append(changeJson(change));
        }
        QJsonObject object = recordJson(found->record);
        object.insert(QStringLiteral("changes"), array);
        out << QJsonDocument(object).toJson(QJsonDocument::Indented);
        return 0;
    }
    out << tr("%1 changed files in the copy of %2 (session %3):")
               .arg(ChangeSet::peopleCount(result.changes))
               .arg(found->record.workspace, found->record.sessionId)
        << '\n';
    // The repository's own files (objects, logs, refs of a commit) are one line; a flagged one (a hook, the config)
    // is still listed on its own: never applied, but worth knowing the agent wrote it.
    int gitEntries = 0;
    for (const Change& change : result.changes) {
        if (ChangeSet::isGitInternal(change.path) && !change.flagged) {
            ++gitEntries;
            continue;
        }
        out << Change::kindLetter(change.kind) << "  " << change.path;
        if (change.after.type == ManifestEntry::Type::Symlink && change.hasAfter) {
            out << " -> " << change.after.linkTarget;
        }
        if (change.flagged) {
            out << "  [" << tr("needs its own confirmation: %1").arg(change.flagReason) << ']';
        }
        if (!change.applicable) {
            out << "  [" << tr("not applied as a file: %1").arg(change.notApplicableReason) << ']';
        }
        out << '\n';
    }
    if (gitEntries > 0) {
        out << "G  .git  ["
            << tr("the repository: %1 entries changed, never applied as files; the agent's commits come with "
                  "--apply into %2")
                   .arg(gitEntries)
                   .arg(GitBundle::refPrefix(found->record.sessionId))
            << "]\n";
    }
    return 0;
}

int applyChanges(ReviewStore& store, const QString& session, const QStringList& paths, QTextStream& out,
                 QTextStream& err) {
    const std::optional<Found> found = findRecord(store, session, err);
    if (!found) {
        return 2;
    }
    const ReviewService::ListResult listed = ReviewService::listChanges(*found->runtime, store, found->record);
    if (!listed.ok) {
        err << listed.error << '\n';
        return 1;
    }
    QList<Change> selection;
    if (paths.isEmpty()) {
        // Apply all: never what needs its own confirmation, never what is not applied as files.
        for (const Change& change : listed.changes) {
            if (change.applicable && !change.flagged) {
                selection.append(change);
            } else if (change.flagged) {
                out << tr("left: %1 (needs its own confirmation: %2; name it to apply it)")
                           .arg(change.path, change.flagReason)
                    << '\n';
            }
        }
    } else {
        QStringList unknown;
        for (const QString& path : paths) {
            const auto it = std::find_if(listed.changes.cbegin(), listed.changes.cend(),
                                         [&path](const Change& change) { return change.path == path; });
            if (it == listed.changes.cend()) {
                unknown << path;
            } else {
                selection.append(*it);  // named: that is the flagged file's own confirmation
            }
        }
        if (!unknown.isEmpty()) {
            err << tr("Not a change of this review copy: %1").arg(unknown.join(QStringLiteral(", "))) << '\n';
            return 2;
        }
    }
    QString error;
    CommitsResult commits;
    const QList<ApplyOutcome> outcomes =
        ReviewService::applyChanges(*found->runtime, store, found->record, selection, false, &error, &commits);
    int problems = 0;
    for (const ApplyOutcome& outcome : outcomes) {
        out << ApplyOutcome::word(outcome.result) << ": " << outcome.path;
        if (!outcome.reason.isEmpty()) {
            out << " (" << outcome.reason << ')';
        }
        out << '\n';
        problems +=
            outcome.result == ApplyOutcome::Result::Conflict || outcome.result == ApplyOutcome::Result::Refused ? 1 : 0;
    }
    // The commits: where they landed, or why they stay in the copy (nothing for a folder that is no repository).
    const QString commitsLine = commits.describe();
    if (!commitsLine.isEmpty()) {
        (commits.state == CommitsResult::State::Failed ? err : out) << commitsLine << '\n';
    }
    problems += commits.state == CommitsResult::State::Failed ? 1 : 0;
    if (!error.isEmpty()) {
        err << error << '\n';
        return 1;
    }
    // A copy no session runs any more, with nothing left to review, goes.
    const ReviewCopy copy(*found->runtime, found->record.containerId);
    if (!copy.isRunning()) {
        const ReviewService::ListResult left = ReviewService::listChanges(*found->runtime, store, found->record);
        if (left.ok && left.changes.isEmpty()
            && ReviewService::discardCopy(*found->runtime, store, found->record, &error)) {
            out << tr("Nothing is left to review: the review copy was removed.") << '\n';
        }
    }
    return problems > 0 ? 3 : 0;
}

int discardCopy(ReviewStore& store, const QString& session, QTextStream& out, QTextStream& err) {
    const std::optional<Found> found = findRecord(store, session, err);
    if (!found) {
        return 2;
    }
    QString error;
    if (!ReviewService::discardCopy(*found->runtime, store, found->record, &error)) {
        err << error << '\n';
        return 1;
    }
    out << tr("Discarded the review copy of %1 (session %2): its container was removed.")
               .arg(found->record.workspace, found->record.sessionId)
        << '\n';
    return 0;
}

}  // namespace

int runReviewMode(const AppOptions& options) {
    QTextStream out(stdout);
    QTextStream err(stderr);
    ReviewStore store;
    switch (options.reviewAction) {
        case AppOptions::ReviewAction::Changes:
            return options.reviewSession.isEmpty() ? listRecords(store, options.json, out, err)
                                                   : listChanges(store, options.reviewSession, options.json, out, err);
        case AppOptions::ReviewAction::Apply:
            return applyChanges(store, options.reviewSession, options.reviewPaths, out, err);
        case AppOptions::ReviewAction::Discard:
            return discardCopy(store, options.reviewSession, out, err);
        case AppOptions::ReviewAction::None:
            break;
    }
    return 2;
}

}  // namespace zeus
