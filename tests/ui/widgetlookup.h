#pragma once

// Finding the real widgets a test drives, as a user sees them: a top-level window of a type, a push button by its
// text (mnemonic ampersands ignored).
#include <QApplication>
#include <QPushButton>
#include <QString>
#include <QWidget>

namespace zeus::test {

// The first visible-or-not top-level widget of type T, or null.
template <typename T>
T* topLevel() {
    for (QWidget* widget : QApplication::topLevelWidgets()) {
        if (auto* found = qobject_cast<T*>(widget)) {
            return found;
        }
    }
    return nullptr;
}

// The push button under `parent` whose text, without '&', is `text`, or null.
inline QPushButton* buttonNamed(QWidget* parent, const QString& text) {
    for (QPushButton* candidate : parent->findChildren<QPushButton*>()) {
        if (candidate->text().remove(QLatin1Char('&')) == text) {
            return candidate;
        }
    }
    return nullptr;
}

}  // namespace zeus::test
