# CUDA parts (bundled workloads, the NVTX/CUPTI tracer) are optional. Report
# at configure time what is enabled and why, so a missing toolkit is obvious.
set(LLMPO_HAVE_CUDA OFF)
if(NOT LLMPO_ENABLE_CUDA)
  message(STATUS "llm-perf-opt: CUDA parts disabled (LLMPO_ENABLE_CUDA=OFF)")
else()
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(LLMPO_HAVE_CUDA ON)
    message(STATUS "llm-perf-opt: CUDA parts enabled (nvcc: ${CMAKE_CUDA_COMPILER})")
  else()
    message(STATUS "llm-perf-opt: CUDA parts disabled: no nvcc found "
                   "(install the CUDA toolkit or set CMAKE_CUDA_COMPILER)")
  endif()
endif()
