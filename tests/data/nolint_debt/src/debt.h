// Fixture of check_nolint_debt.py: debt_table.txt beside src/ disagrees with it.
#pragma once

inline int Listed(int x) { return x; }

// NOLINTNEXTLINE(readability-function-cognitive-complexity): a fixture exemption
inline int Unlisted(int x) { return x + 1; }
