#include "cli/option_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

namespace trainscope::cli {

CLI::Validator NonEmptyValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!value.empty()) return {};
        return "an empty value (give a path or value; omit the option to leave it out)";
      },
      "", "NON-EMPTY");
}

CLI::Validator FiniteNumber(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        const char* begin = value.c_str();
        char* end = nullptr;
        const double number = std::strtod(begin, &end);
        const bool whole = end != begin && *end == '\0';
        if (whole && std::isfinite(number) && number >= lo && number <= hi) return {};
        return fmt::format("{}: expected a number from {:g} to {:g}", value, lo, hi);
      },
      "", "FINITE");
}

CLI::Validator WholeNumber(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        int64_t number = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, number);
        if (ec == std::errc() && ptr == end && number >= lo && number <= hi) return {};
        return fmt::format("{}: expected a whole number from {} to {}", value, lo, hi);
      },
      "", "WHOLE");
}

void AddCommonChecks(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    for (CLI::Option* option : sub->get_options([](const CLI::Option*) { return true; })) {
      // Flags take no value; positionals are paths their loaders check.
      if (option->get_positional() || option->get_type_size() == 0) continue;
      option->check(NonEmptyValue());
      if (option->get_type_name() == "FLOAT") {
        option->check(
            FiniteNumber(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()));
      }
    }
  }
}

}  // namespace trainscope::cli
