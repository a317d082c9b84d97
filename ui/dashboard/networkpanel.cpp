#include "dashboard/networkpanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace zeus {

namespace {
enum Column { Session, Host, Port, Decision, Rule, Secrets, Count, LastSeen, Columns };
constexpr int kMaxRows = 500;  // the oldest rows go first: the log is a view, not a record
}  // namespace

NetworkPanel::NetworkPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("NetworkPanel"));
    auto* layout = new QVBoxLayout(this);
    m_empty = new QLabel(tr("No connection attempts yet. With the allowlist, every host a command asks for "
                            "shows up here with the rule that decided it."),
                         this);
    m_empty->setWordWrap(true);
    layout->addWidget(m_empty);
    m_table = new QTableWidget(0, Columns, this);
    m_table->setObjectName(QStringLiteral("policyLog"));
    m_table->setHorizontalHeaderLabels({tr("Session"), tr("Host"), tr("Port"), tr("Decision"), tr("Rule"),
                                        tr("Secrets sent"), tr("Count"), tr("Last seen")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(Rule, QHeaderView::Stretch);
    for (const int column : {int(Session), int(Host), int(Port), int(Decision), int(Secrets), int(Count)}) {
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    // SPEC §9: the substitutions of host-bound secrets on a row, by name and count (never a value).
    m_table->horizontalHeaderItem(Secrets)->setToolTip(
        tr("Secrets bound to this host that the app put into its requests, and how many times."));
    m_table->setAccessibleName(tr("Network policy log"));
    layout->addWidget(m_table, 1);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_once = new QPushButton(tr("Allow &Once"), this);
    m_once->setObjectName(QStringLiteral("allowOnce"));
    m_session = new QPushButton(tr("Allow for This &Session"), this);
    m_session->setObjectName(QStringLiteral("allowForSession"));
    m_folder = new QPushButton(tr("Always Allow for This &Folder"), this);
    m_folder->setObjectName(QStringLiteral("allowForFolder"));
    for (QPushButton* button : {m_once, m_session, m_folder}) {
        buttons->addWidget(button);
    }
    layout->addLayout(buttons);

    connect(m_table, &QTableWidget::itemSelectionChanged, this, &NetworkPanel::updateButtons);
    connect(m_once, &QPushButton::clicked, this, [this] {
        QString session;
        QString host;
        int port = 0;
        if (selected(&session, &host, &port)) {
            Q_EMIT allowOnceRequested(session, host, port);
        }
    });
    connect(m_session, &QPushButton::clicked, this, [this] {
        QString session;
        QString host;
        int port = 0;
        if (selected(&session, &host, &port)) {
            Q_EMIT allowForSessionRequested(session, ruleFor(host, port));
        }
    });
    connect(m_folder, &QPushButton::clicked, this, [this] {
        QString session;
        QString host;
        int port = 0;
        if (selected(&session, &host, &port)) {
            Q_EMIT allowForFolderRequested(session, ruleFor(host, port));
        }
    });
    updateButtons();
    m_table->setVisible(false);
}

QString NetworkPanel::ruleFor(const QString& host, int port) {
    const QString name = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return port == 80 || port == 443 ? host : name + QLatin1Char(':') + QString::number(port);
}

int NetworkPanel::rows() const {
    return m_table->rowCount();
}

void NetworkPanel::clear() {
    m_table->setRowCount(0);
    m_rows.clear();
    m_table->setVisible(false);
    m_empty->setVisible(true);
}

void NetworkPanel::addEvent(const EgressEvent& event) {
    const QString key = event.sessionId + QLatin1Char('\n') + event.host + QLatin1Char('\n')
                        + QString::number(event.port) + QLatin1Char('\n') + event.decisionWord();
    auto it = m_rows.find(key);
    if (it == m_rows.end()) {
        if (m_table->rowCount() >= kMaxRows) {
            m_table->removeRow(0);
            QHash<QString, Row> shifted;
            for (auto r = m_rows.cbegin(); r != m_rows.cend(); ++r) {
                if (r->index > 0) {
                    shifted.insert(r.key(), Row{r->count, r->index - 1, r->substitutions});
                }
            }
            m_rows = shifted;
        }
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        for (int column = 0; column < Columns; ++column) {
            m_table->setItem(row, column, new QTableWidgetItem);
        }
        m_table->item(row, Session)->setText(event.sessionId);
        m_table->item(row, Host)->setText(event.host);
        m_table->item(row, Port)->setText(QString::number(event.port));
        QString decision = event.allowed ? tr("allowed") : tr("denied");
        if (event.tlsUntrusted) {
            decision = tr("certificate not trusted");  // allowed by the policy, then refused by the client
        }
        m_table->item(row, Decision)->setText(decision);
        m_table->item(row, Decision)->setData(Qt::UserRole, event.allowed);
        if (!event.allowed || event.tlsUntrusted) {
            m_table->item(row, Decision)->setForeground(QColor(0xb4, 0x23, 0x18));
        }
        it = m_rows.insert(key, Row{0, row, {}});
    }
    const int row = it->index;
    if (event.substitutions.isEmpty()) {
        it->count += 1;  // a connection; its substitutions (SPEC §9) are the Secrets column's, not counted again
        QString rule = event.rule;
        if (!event.detail.isEmpty()) {
            rule += QStringLiteral(" — ") + event.detail;
        }
        m_table->item(row, Rule)->setText(rule);
    } else {
        for (auto s = event.substitutions.cbegin(); s != event.substitutions.cend(); ++s) {
            it->substitutions[s.key()] += s.value();
        }
        QStringList names = it->substitutions.keys();
        names.sort();
        QStringList parts;
        for (const QString& name : std::as_const(names)) {
            parts << tr("%1 ×%2").arg(name).arg(it->substitutions.value(name));
        }
        m_table->item(row, Secrets)->setText(parts.join(QStringLiteral(", ")));
    }
    m_table->item(row, Count)->setText(QString::number(it->count));
    m_table->item(row, LastSeen)->setText(QLocale().toString(event.when.toLocalTime().time(), QLocale::ShortFormat));
    m_table->setVisible(true);
    m_empty->setVisible(false);
    updateButtons();
}

void NetworkPanel::selectHost(const QString& sessionId, const QString& host, int port) {
    for (int row = m_table->rowCount() - 1; row >= 0; --row) {
        if (m_table->item(row, Session)->text() == sessionId && m_table->item(row, Host)->text() == host
            && m_table->item(row, Port)->text() == QString::number(port)) {
            m_table->selectRow(row);
            return;
        }
    }
}

bool NetworkPanel::selected(QString* sessionId, QString* host, int* port) const {
    const QList<QTableWidgetItem*> items = m_table->selectedItems();
    if (items.isEmpty()) {
        return false;
    }
    const int row = items.first()->row();
    *sessionId = m_table->item(row, Session)->text();
    *host = m_table->item(row, Host)->text();
    *port = m_table->item(row, Port)->text().toInt();
    return !m_table->item(row, Decision)->data(Qt::UserRole).toBool();
}

void NetworkPanel::updateButtons() {
    QString session;
    QString host;
    int port = 0;
    const bool denied = selected(&session, &host, &port);
    for (QPushButton* button : {m_once, m_session, m_folder}) {
        button->setEnabled(denied);
    }
}

}  // namespace zeus
