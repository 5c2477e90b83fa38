// CUDA side of the tracer: the library named by CUDA_INJECTION64_PATH. The
// CUDA driver calls InitializeInjection when the program initialises CUDA;
// we load CUPTI (dlopen, so the library also loads where CUPTI is absent and
// only NVTX is traced), make it stamp records with our clock, and collect
// kernel, memcpy and memset activity plus the runtime and driver API calls
// whose correlation ids link each GPU record to the thread that launched it.
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/model/trace_format.h"
#include "tracer/exit_hooks.h"
#include "tracer/trace_buffer.h"

namespace llmpo::tracer {
namespace {

constexpr std::size_t kBufferBytes = 8 << 20;

struct Cupti {
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*next_record)(uint8_t*, size_t, CUpti_Activity**);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*register_timestamp)(CUpti_TimestampCallbackFunc);
  CUptiResult (*dropped)(CUcontext, uint32_t, size_t*);
  CUptiResult (*set_thread_id_type)(CUpti_ActivityThreadIdType);
};
Cupti g_cupti{};

uint64_t CUPTIAPI Timestamp() { return NowNs(); }

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void WriteRecord(const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      Line(trace_format::kKernel)
          .Add(std::uint64_t{k->deviceId})
          .Add(std::uint64_t{k->contextId})
          .Add(std::uint64_t{k->streamId})
          .Add(std::uint64_t{k->correlationId})
          .Add(std::uint64_t{k->start})
          .Add(std::uint64_t{k->end})
          .Add(std::to_string(k->gridX) + "," + std::to_string(k->gridY) + "," + std::to_string(k->gridZ))
          .Add(std::to_string(k->blockX) + "," + std::to_string(k->blockY) + "," + std::to_string(k->blockZ))
          .Add(std::string_view(k->name ? k->name : "?"));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      Line(trace_format::kMemcpy)
          .Add(std::uint64_t{m->deviceId})
          .Add(std::uint64_t{m->streamId})
          .Add(std::uint64_t{m->correlationId})
          .Add(std::uint64_t{m->start})
          .Add(std::uint64_t{m->end})
          .Add(std::uint64_t{m->bytes})
          .Add(std::uint64_t{m->copyKind});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      Line(trace_format::kMemset)
          .Add(std::uint64_t{m->deviceId})
          .Add(std::uint64_t{m->streamId})
          .Add(std::uint64_t{m->correlationId})
          .Add(std::uint64_t{m->start})
          .Add(std::uint64_t{m->end})
          .Add(std::uint64_t{m->bytes});
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      Line(trace_format::kApiCall)
          .Add(std::uint64_t{a->threadId})
          .Add(std::uint64_t{a->correlationId})
          .Add(std::uint64_t{a->start})
          .Add(std::uint64_t{a->end})
          .Add(std::string_view(r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime" : "driver"))
          .Add(std::uint64_t{a->cbid});
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (g_cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) WriteRecord(record);
  size_t dropped = 0;
  if (g_cupti.dropped != nullptr && g_cupti.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    Line(trace_format::kWarning).Add(std::string_view("cupti_dropped_records")).Add(std::uint64_t{dropped});
  }
  std::free(buffer);
  (void)size;
}

void FlushCupti() { g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

template <typename Fn>
bool Load(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

void* OpenCupti() {
  if (const char* path = std::getenv("LLMPO_CUPTI_PATH"); path != nullptr && *path) return dlopen(path, RTLD_NOW);
  for (const char* name : {"libcupti.so", "libcupti.so.13", "libcupti.so.12", LLMPO_CUPTI_FALLBACK,
                           "/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"}) {
    if (void* lib = dlopen(name, RTLD_NOW)) return lib;
  }
  return nullptr;
}

}  // namespace
}  // namespace llmpo::tracer

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  using namespace llmpo::tracer;
  StartTraceFile();
  void* lib = OpenCupti();
  if (lib == nullptr) {
    std::fprintf(stderr,
                 "llm-perf-opt tracer: CUPTI not found (%s); GPU activity is not traced. Set LLMPO_CUPTI_PATH to "
                 "libcupti.so\n",
                 dlerror());
    Line(llmpo::trace_format::kWarning).Add(std::string_view("cupti_missing"));
    return 1;  // NVTX tracing goes on
  }
  Cupti& c = g_cupti;
  if (!Load(lib, "cuptiActivityRegisterCallbacks", c.register_callbacks) ||
      !Load(lib, "cuptiActivityEnable", c.enable) || !Load(lib, "cuptiActivityGetNextRecord", c.next_record) ||
      !Load(lib, "cuptiActivityFlushAll", c.flush_all)) {
    std::fprintf(stderr, "llm-perf-opt tracer: this CUPTI lacks the activity API; GPU activity is not traced\n");
    Line(llmpo::trace_format::kWarning).Add(std::string_view("cupti_unusable"));
    return 1;
  }
  Load(lib, "cuptiActivityGetNumDroppedRecords", c.dropped);
  // API records must name threads as the NVTX side does (gettid); CUPTI's
  // default is pthread_self(), which would match no range.
  if (!Load(lib, "cuptiSetThreadIdType", c.set_thread_id_type) ||
      c.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS) {
    Line(llmpo::trace_format::kWarning).Add(std::string_view("cupti_thread_ids_not_system"));
  }
  CUptiResult (*cupti_now)(uint64_t*) = nullptr;
  if (Load(lib, "cuptiActivityRegisterTimestampCallback", c.register_timestamp) &&
      c.register_timestamp(Timestamp) == CUPTI_SUCCESS) {
    // CUPTI stamps with our clock.
  } else if (Load(lib, "cuptiGetTimestamp", cupti_now)) {
    // An older CUPTI keeps its own clock (CLOCK_REALTIME): the offset lets
    // the importer move its records onto ours ("C" record).
    uint64_t theirs = 0;
    const uint64_t ours = NowNs();
    cupti_now(&theirs);
    Line(llmpo::trace_format::kClockOffset).Add(static_cast<std::int64_t>(theirs - ours));
  } else {
    Line(llmpo::trace_format::kWarning).Add(std::string_view("cupti_clock_unknown"));
  }
  c.register_callbacks(BufferRequested, BufferCompleted);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER}) {
    if (c.enable(kind) != CUPTI_SUCCESS)
      Line(llmpo::trace_format::kWarning).Add(std::string_view("cupti_enable_failed")).Add(std::uint64_t{kind});
  }
  Line(llmpo::trace_format::kGpuTraced).Add(std::string_view("cupti"));
  AddExitHook(FlushCupti, /*order=*/0);
  // Also straight away: atexit runs handlers in reverse order of
  // registration, so one registered now, during CUDA's initialisation, runs
  // before the CUDA runtime's own teardown even when the NVTX side registered
  // the exit hooks earlier. (A second flush later finds nothing.)
  std::atexit(FlushCupti);
  return 1;
}
