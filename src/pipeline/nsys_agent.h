// nsys starts a daemon for each capture (`nsys --start-agent
// --session-name=profile-PROGRAM-PID`, PID being the `nsys profile` we
// started) in a session of its own, so stopping the step's process group
// does not reach it. When nsys fails (2022.4: "End of file"), times out or
// is interrupted, that agent stays behind; this stops it.
#pragma once

#include <sys/types.h>

namespace llmpo::pipeline {

// Stops (SIGTERM, then SIGKILL after `grace_s`) every nsys agent of the
// capture `nsys profile` with process id `nsys_pid` started; returns how many
// were found.
int StopNsysAgents(pid_t nsys_pid, double grace_s = 2.0);

}  // namespace llmpo::pipeline
