#pragma once

#include "sandbox/egress/egressproxy.h"

#include <QHash>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace zeus {

// The dashboard's policy log (SPEC §8): every host a session asked for, with the decision, the rule that made
// it, how often and when last. A denied row can be allowed from here: once, for its session, or always for
// its folder. The panel only asks (its signals); the composition root applies the answer.
class NetworkPanel : public QWidget {
    Q_OBJECT

public:
    explicit NetworkPanel(QWidget* parent = nullptr);

    void addEvent(const EgressEvent& event);
    void clear();
    int rows() const;
    // Selects the newest row for this host (the tray's "review" click).
    void selectHost(const QString& sessionId, const QString& host, int port);

    // The rule that allows exactly this host and port ("host" for 80 and 443, else "host:port").
    static QString ruleFor(const QString& host, int port);

Q_SIGNALS:
    void allowOnceRequested(const QString& sessionId, const QString& host, int port);
    void allowForSessionRequested(const QString& sessionId, const QString& rule);
    void allowForFolderRequested(const QString& sessionId, const QString& rule);

private:
    struct Row {
        int count = 0;
        int index = -1;
        QHash<QString, qint64> substitutions;  // host-bound secrets put into this row's requests, by name
    };
    void updateButtons();
    bool selected(QString* sessionId, QString* host, int* port) const;

    QTableWidget* m_table = nullptr;
    QLabel* m_empty = nullptr;
    QPushButton* m_once = nullptr;
    QPushButton* m_session = nullptr;
    QPushButton* m_folder = nullptr;
    QHash<QString, Row> m_rows;  // session, host, port, decision -> its row
};

}  // namespace zeus
