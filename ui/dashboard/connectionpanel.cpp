#include "dashboard/connectionpanel.h"

#include "appsettings.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

namespace zeus {

ConnectionPanel::ConnectionPanel(BackendConnection* connection, AppSettings* settings, QWidget* parent)
    : QWidget(parent), m_connection(connection), m_settings(settings) {
    setObjectName(QStringLiteral("ConnectionPanel"));
    m_state = new QLabel(this);
    m_state->setObjectName(QStringLiteral("connectionState"));
    QFont bold = m_state->font();
    bold.setBold(true);
    m_state->setFont(bold);
    m_url = new QLabel(this);
    m_url->setObjectName(QStringLiteral("connectionUrl"));
    m_url->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("connectionError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Red only for an actual error, not for the "—" placeholder.
    m_errorPalette = m_error->palette();
    m_errorPalette.setColor(QPalette::WindowText, QColor(0xb4, 0x23, 0x18));
    m_next = new QLabel(this);
    m_next->setObjectName(QStringLiteral("nextAttempt"));
    m_toggle = new QPushButton(this);
    m_toggle->setObjectName(QStringLiteral("connectToggle"));

    auto* form = new QFormLayout;
    form->addRow(tr("State:"), m_state);
    form->addRow(tr("Backend:"), m_url);
    form->addRow(tr("Last error:"), m_error);
    form->addRow(tr("Next attempt:"), m_next);
    auto* layout = new QHBoxLayout(this);
    layout->addLayout(form, 1);
    layout->addWidget(m_toggle, 0, Qt::AlignTop);

    connect(m_toggle, &QPushButton::clicked, this, [this] {
        const QString action = m_toggle->property("action").toString();
        if (action == QLatin1String("signin")) {
            Q_EMIT signInRequested();
        } else if (action == QLatin1String("disconnect")) {
            Q_EMIT disconnectRequested();
        } else {
            Q_EMIT connectRequested();
        }
    });
    m_countdown.setInterval(1000);
    connect(&m_countdown, &QTimer::timeout, this, &ConnectionPanel::refresh);
    if (m_connection) {
        connect(m_connection, &BackendConnection::stateChanged, this, &ConnectionPanel::refresh);
        connect(m_connection, &BackendConnection::historyChanged, this, &ConnectionPanel::refresh);
    }
    connect(m_settings, &AppSettings::backendUrlChanged, this, &ConnectionPanel::refresh);
    refresh();
}

QString ConnectionPanel::nextAttemptText(const QDateTime& next, const QDateTime& now) {
    if (!next.isValid()) {
        return QStringLiteral("—");
    }
    const qint64 seconds = std::max<qint64>(0, now.secsTo(next));
    return tr("%1 (in %2 s)").arg(QLocale().toString(next.toLocalTime().time(), QLocale::LongFormat)).arg(seconds);
}

void ConnectionPanel::setBackendUrlOverride(const QString& url) {
    m_backendUrlOverride = url;
    refresh();
}

void ConnectionPanel::refresh() {
    const QString url = m_backendUrlOverride.isEmpty() ? m_settings->backendUrl() : m_backendUrlOverride;
    if (!m_backendUrlOverride.isEmpty()) {
        m_url->setText(tr("%1 (from the command line, this run only)").arg(url));
    } else {
        m_url->setText(url.isEmpty() ? tr("not configured (Settings › Connection)") : url);
    }
    if (!m_connection) {
        m_state->setText(tr("Not available"));
        m_toggle->setVisible(false);
        return;
    }
    const BackendConnection::State state = m_connection->state();
    m_state->setText(BackendConnection::stateName(state));
    const QString error = m_connection->lastError();
    m_error->setText(error.isEmpty() ? QStringLiteral("—") : error);
    m_error->setPalette(error.isEmpty() ? palette() : m_errorPalette);
    const QDateTime next = m_connection->nextAttemptAt();
    m_next->setText(nextAttemptText(next, QDateTime::currentDateTime()));
    if (state == BackendConnection::State::Reconnecting) {
        if (!m_countdown.isActive()) {
            m_countdown.start();
        }
    } else {
        m_countdown.stop();
    }

    QString action;
    if (state == BackendConnection::State::SignedOut || state == BackendConnection::State::AuthFailed) {
        action = QStringLiteral("signin");
        m_toggle->setText(tr("&Sign In…"));
    } else if (state == BackendConnection::State::Disconnected || state == BackendConnection::State::Error) {
        action = QStringLiteral("connect");
        m_toggle->setText(tr("&Connect"));
    } else {
        action = QStringLiteral("disconnect");
        m_toggle->setText(tr("&Disconnect"));
    }
    m_toggle->setProperty("action", action);
    m_toggle->setEnabled(!url.isEmpty() || action == QLatin1String("disconnect"));
    m_toggle->setAccessibleName(m_toggle->text().remove(QLatin1Char('&')));
}

}  // namespace zeus
