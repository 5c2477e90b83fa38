// What runs when the traced process exits normally (exit() or a return from
// main): the CUPTI flush first, then the NVTX ranges still open, then every
// buffer to disk with the end marker. A killed process loses only what its
// buffers held (at most 64 KiB per thread); the importer reports a trace
// without its end marker as truncated.
#pragma once

namespace llmpo::tracer {

// Lower order runs first. Registering the first hook installs the atexit handler.
void AddExitHook(void (*hook)(), int order);

}  // namespace llmpo::tracer
