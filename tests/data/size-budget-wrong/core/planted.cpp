// A planted tree for the size budget's own test (run with --file-limit 40 --function-limit 12).
#include <cstdio>

namespace zeus {

namespace {

// Braces in strings, characters, raw strings and comments are not code: this function is 5 lines.
int quiet() {
    const char* text = "}}}} {{{{";  // }}}}
    /* { { { */ const char c = '{';
    return text[0] + c + R"x(}})"})x"[0];
}

}  // namespace

// 13 lines from its brace to its closing brace: one past the planted function limit.
int Planted::longFunction(int value) const {
    value += 1;
    value += 2;
    value += 3;
    value += 4;
    value += 5;
    value += 6;
    value += 7;
    value += 8;
    value += 9;
    value += 10;
    return value;
}

// Allowed at 12 in the planted allowlist, which is more than it has: the allowance must shrink.
Planted::Planted(int a) : m_a(a), m_b(quiet()) {
    m_a += 1;
}

static const int kTable[] = {
    1, 2, 3,
};

}  // namespace zeus
// Padding to pass the planted file limit of 40 lines.
//
