#include "backend/resultjournal.h"

#include "backend/protocol.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <optional>
#include <utility>

namespace zeus {

namespace {

constexpr QFileDevice::Permissions kFilePermissions = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions kFolderPermissions =
    QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;

QByteArray line(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

std::optional<ExecStatus> statusFromName(const QString& name) {
    for (const ExecStatus status : {ExecStatus::Ok, ExecStatus::Error, ExecStatus::Timeout, ExecStatus::Cancelled}) {
        if (name == execStatusName(status)) {
            return status;
        }
    }
    return std::nullopt;
}

std::optional<ToolResultMessage> resultFromJson(const QJsonObject& object) {
    ToolResultMessage result;
    result.callId = object.value(QStringLiteral("call_id")).toString();
    const std::optional<ExecStatus> status = statusFromName(object.value(QStringLiteral("status")).toString());
    if (!Protocol::isValidId(result.callId) || !status) {
        return std::nullopt;
    }
    result.status = *status;
    const QJsonValue exitCode = object.value(QStringLiteral("exit_code"));
    if (exitCode.isDouble()) {
        result.exitCode = exitCode.toInt();
    }
    result.output = object.value(QStringLiteral("output")).toString();
    result.truncated = object.value(QStringLiteral("truncated")).toBool();
    result.durationMs = qint64(object.value(QStringLiteral("duration_ms")).toDouble());
    result.redacted = qint64(object.value(QStringLiteral("redacted")).toDouble());
    if (result.status == ExecStatus::Error) {
        result.errorCode = Protocol::errorCodeFromName(object.value(QStringLiteral("error_code")).toString())
                               .value_or(ProtocolErrorCode::ContainerFailed);
        result.errorMessage = object.value(QStringLiteral("error_message")).toString();
    }
    return result;
}

}  // namespace

QString ResultJournal::pathFor(const QString& dataFolder, const QString& backendUrl) {
    const QByteArray digest = QCryptographicHash::hash(backendUrl.trimmed().toUtf8(), QCryptographicHash::Sha256);
    return QDir(dataFolder)
        .filePath(QStringLiteral("journal/results-%1.jsonl").arg(QString::fromLatin1(digest.toHex().left(16))));
}

ResultJournal::ResultJournal(QString path) : m_path(std::move(path)) {}

ResultJournal::~ResultJournal() = default;

QString ResultJournal::interruptedMessage() {
    return QStringLiteral("interrupted: the app stopped while this ran");
}

ToolResultMessage ResultJournal::interruptedResult(const QString& callId) {
    ToolResultMessage result;
    result.callId = callId;
    result.status = ExecStatus::Error;
    result.errorCode = ProtocolErrorCode::ContainerFailed;
    result.errorMessage = interruptedMessage();
    return result;
}

QByteArray ResultJournal::startedLine(const QString& callId) {
    return line(QJsonObject{{QStringLiteral("op"), QStringLiteral("started")}, {QStringLiteral("call_id"), callId}});
}

QByteArray ResultJournal::resultLine(const ToolResultMessage& result) {
    QJsonObject object{{QStringLiteral("op"), QStringLiteral("result")},
                       {QStringLiteral("call_id"), result.callId},
                       {QStringLiteral("status"), execStatusName(result.status)},
                       {QStringLiteral("exit_code"), result.exitCode ? QJsonValue(*result.exitCode) : QJsonValue()},
                       {QStringLiteral("output"), result.output},
                       {QStringLiteral("truncated"), result.truncated},
                       {QStringLiteral("duration_ms"), double(result.durationMs)},
                       {QStringLiteral("redacted"), double(result.redacted)}};
    if (result.status == ExecStatus::Error) {
        object.insert(QStringLiteral("error_code"), Protocol::errorCodeName(result.errorCode));
        object.insert(QStringLiteral("error_message"), result.errorMessage);
    }
    return line(object);
}

QByteArray ResultJournal::forgetLine(const QString& callId) {
    return line(QJsonObject{{QStringLiteral("op"), QStringLiteral("forget")}, {QStringLiteral("call_id"), callId}});
}

ResultJournal::Loaded ResultJournal::load() {
    Loaded loaded;
    m_file.close();
    m_liveBytes.clear();
    m_liveTotal = 0;
    m_fileBytes = 0;
    QFile file(m_path);
    if (!file.exists()) {
        return loaded;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        loaded.problems << QStringLiteral("cannot read %1: %2").arg(m_path, file.errorString());
        return loaded;
    }
    m_fileBytes = file.size();
    QList<ToolResultMessage> results;  // in order, at most one per call id
    QStringList started;
    int number = 0;
    while (!file.atEnd()) {
        ++number;
        const QByteArray text = file.readLine(kMaxLineBytes);
        if (!text.endsWith('\n')) {
            // Cut short by a crash mid-write, or longer than any record: what follows it is the next line.
            loaded.problems << QStringLiteral("line %1 is incomplete (%2 bytes); skipped").arg(number).arg(text.size());
            continue;
        }
        QJsonParseError error{};
        const QJsonObject object = QJsonDocument::fromJson(text, &error).object();
        const QString op = object.value(QStringLiteral("op")).toString();
        const QString callId = object.value(QStringLiteral("call_id")).toString();
        if (error.error != QJsonParseError::NoError || !Protocol::isValidId(callId)) {
            loaded.problems << QStringLiteral("line %1 is unreadable; skipped").arg(number);
            continue;
        }
        if (op == QLatin1String("started")) {
            if (!started.contains(callId)) {
                started.append(callId);
            }
        } else if (op == QLatin1String("result")) {
            const std::optional<ToolResultMessage> result = resultFromJson(object);
            if (!result) {
                loaded.problems << QStringLiteral("line %1 is not a valid result; skipped").arg(number);
                continue;
            }
            started.removeAll(callId);
            results.erase(std::remove_if(results.begin(), results.end(),
                                         [&](const ToolResultMessage& r) { return r.callId == callId; }),
                          results.end());
            results.append(*result);
        } else if (op == QLatin1String("forget")) {
            started.removeAll(callId);
            results.erase(std::remove_if(results.begin(), results.end(),
                                         [&](const ToolResultMessage& r) { return r.callId == callId; }),
                          results.end());
        } else {
            loaded.problems << QStringLiteral("line %1 has an unknown record; skipped").arg(number);
        }
    }
    loaded.results = results;
    loaded.interrupted = started;
    return loaded;
}

bool ResultJournal::ensureFolder() const {
    const QString folder = QFileInfo(m_path).absolutePath();
    if (!QDir().mkpath(folder)) {
        return false;
    }
    // Command output is in here: only the user may even list it.
    return QFile::setPermissions(folder, kFolderPermissions);
}

bool ResultJournal::append(const QByteArray& text, const QString& callId, bool live) {
    if (!m_file.isOpen()) {
        if (!ensureFolder()) {
            return false;
        }
        m_file.setFileName(m_path);
        if (!m_file.open(QIODevice::WriteOnly | QIODevice::Append)) {
            return false;
        }
        m_file.setPermissions(kFilePermissions);
        m_fileBytes = m_file.size();
    }
    if (m_file.write(text) != text.size() || !m_file.flush()) {
        return false;
    }
    m_fileBytes += text.size();
    m_liveTotal -= m_liveBytes.take(callId);
    if (live) {
        m_liveBytes.insert(callId, text.size());
        m_liveTotal += text.size();
    }
    return true;
}

bool ResultJournal::recordStarted(const QString& callId) {
    return append(startedLine(callId), callId, true);
}

bool ResultJournal::recordResult(const ToolResultMessage& result) {
    return append(resultLine(result), result.callId, true);
}

bool ResultJournal::recordForgotten(const QString& callId) {
    if (!m_liveBytes.contains(callId)) {
        return true;  // nothing of it is in the log
    }
    return append(forgetLine(callId), callId, false);
}

bool ResultJournal::rewrite(const QStringList& running, const QList<ToolResultMessage>& results) {
    m_file.close();
    if (!ensureFolder()) {
        return false;
    }
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly)) {
        return false;
    }
    file.setPermissions(kFilePermissions);
    QHash<QString, qint64> live;
    qint64 total = 0;
    for (const QString& callId : running) {
        const QByteArray text = startedLine(callId);
        file.write(text);
        live.insert(callId, text.size());
        total += text.size();
    }
    for (const ToolResultMessage& result : results) {
        const QByteArray text = resultLine(result);
        file.write(text);
        total -= live.value(result.callId);
        live.insert(result.callId, text.size());
        total += text.size();
    }
    if (!file.commit()) {
        return false;
    }
    QFile::setPermissions(m_path, kFilePermissions);
    m_liveBytes = live;
    m_liveTotal = total;
    m_fileBytes = QFileInfo(m_path).size();
    return true;
}

bool ResultJournal::needsCompaction() const {
    return m_fileBytes > kMinCompactBytes && m_fileBytes > 2 * m_liveTotal;
}

}  // namespace zeus
