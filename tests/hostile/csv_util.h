// Fixtures for the hostile CSV and output tests: a one-rank Ascend job built
// at run time from the bytes a test wants to plant.
#pragma once

#include <map>
#include <string>

namespace trainscope::testing {

// The CANN 8.x kernel_details.csv header (8 columns).
inline constexpr const char* kKernelDetailsHeader =
    "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n";

// One well-formed kernel_details.csv row: step 1, kernel |name| (and op type
// |name|, quoted) starting
// |index| * 30 us after a fixed epoch, 12.5 us long.
std::string DeviceEvent(int index, const std::string& name);

// |rows| good rows named kernel_<i> (i from |first|).
std::string KernelRows(int first, int rows);

// Writes <job>/rank_0_ascend_pt/{profiler_info_0.json, ASCEND_PROFILER_OUTPUT/
// kernel_details.csv = |kernel_details|, and each of |other_outputs| (file
// name -> bytes)} under a fresh temp dir; returns the job directory.
std::string WriteAscendJob(const std::string& tag, const std::string& kernel_details,
                           const std::map<std::string, std::string>& other_outputs = {});

// A kernel_details.csv whose kernel names hold every kind of hostile byte
// (never-UTF-8 bytes, ANSI sequences, BEL, CESU-8 surrogates, overlongs,
// truncated sequences, C1 controls, CR/BS/DEL, a bidi override), each name
// four times, plus one row whose bad start time quotes ESC and BEL.
std::string EvilKernelDetails();

}  // namespace trainscope::testing
