#pragma once
// Planted: core/approval/ must never include a GUI header (the question is asked by ui/).
#include <QWidget>
