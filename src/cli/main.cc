#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/malloc_tuning.h"

int main(int argc, char** argv) {
  trainscope::cli::ReturnLargeBlocksToTheSystem();
  std::vector<std::string> args(argv + 1, argv + argc);
  return trainscope::cli::Run(args);
}
