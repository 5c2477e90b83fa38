// How many CPUs this process may run on (its affinity mask, which taskset,
// cgroups' cpusets and batch schedulers narrow), for the readers and
// writers that use a second thread only where a second CPU is there.
#pragma once

namespace llmpo {

// At least 1.
int UsableCpus();

}  // namespace llmpo
