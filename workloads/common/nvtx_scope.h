// RAII NVTX push/pop ranges (NVTX3, header-only), in the default domain or in
// a named one. The regions test (nvtx_regions.cu) spells its calls out
// instead, so that it reads as the reference for the NVTX grammar.
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace wl {

class ScopedRange {
 public:
  explicit ScopedRange(const char* name) { nvtxRangePushA(name); }
  ~ScopedRange() { nvtxRangePop(); }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
};

// A push/pop range in `domain` (shows as DOMAIN@name in the reports).
class DomainRange {
 public:
  DomainRange(nvtxDomainHandle_t domain, const char* name) : domain_(domain) {
    nvtxEventAttributes_t attr = {};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = name;
    nvtxDomainRangePushEx(domain_, &attr);
  }
  ~DomainRange() { nvtxDomainRangePop(domain_); }
  DomainRange(const DomainRange&) = delete;
  DomainRange& operator=(const DomainRange&) = delete;

 private:
  nvtxDomainHandle_t domain_;
};

}  // namespace wl
