#!/usr/bin/env bash
# Stands in for a program run under the tracer: copies the trace named by
# FAKE_TRACE to where the tracer would write it ($LLMPO_TRACE_FILE, %p = pid).
set -euo pipefail
cp "$FAKE_TRACE" "${LLMPO_TRACE_FILE/\%p/$$}"
