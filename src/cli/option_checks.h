// Checks on option values shared by every command (CLI11 validators).
//
// A refused value is a usage error (exit 2) naming the option and what it
// expects: an empty value ('--json ""' would otherwise read as "not
// requested"), a number that is not finite (nan, inf), negative where only
// sizes make sense, or beyond a sane bound (a threshold of 1e20).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace trainscope::cli {

// Refuses "" (option values only; positionals are checked by their loaders).
CLI::Validator NonEmptyValue();

// A finite decimal number in [lo, hi].
CLI::Validator FiniteNumber(double lo, double hi);

// A whole number in [lo, hi], without the wrap-around of unsigned parsing.
CLI::Validator WholeNumber(int64_t lo, int64_t hi);

// Adds NonEmptyValue to every option of |app|'s subcommands that takes a
// value, and FiniteNumber(-max, max) to every floating-point one.
void AddCommonChecks(CLI::App& app);

}  // namespace trainscope::cli
