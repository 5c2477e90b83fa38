// Every name the output writers make (a file created, a folder made, a
// rename) passes this gate. An import stopped by SIGINT or SIGTERM closes
// it before it removes what the import made (src/pipeline/import_stop.h):
// a name made after that clean-up had looked would outlive it, so once the
// gate is closed nothing more is made.
#pragma once

#include <functional>

namespace llmpo {

// Runs `make` (a system call that makes a name; its result) while the gate
// is open; once closed, returns -1 with errno ECANCELED without running it.
int ThroughNameGate(const std::function<int()>& make);

// Closes the gate for good, after the call in flight (if any) returns.
void CloseNameGate();

}  // namespace llmpo
