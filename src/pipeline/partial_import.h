// Imports that reduce each input to a partial result (report/partial_set.h)
// before the next is opened: a pool of at most `threads` threads, each
// reading one input at a time into collectors of its own, so that peak
// memory grows with the threads, not with the inputs. The partials are then
// merged in the inputs' order (partial_merge.h): the same collected state
// as one import of every input in that order.
//   import --partial OUT.json FILES...  writes the merged partial;
//   import -j N FILES... --out DIR      writes the reports from it;
//   merge PARTIALS... --out DIR         reads partials and does the same.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/import_job.h"
#include "src/report/partial_set.h"

namespace llmpo::pipeline {

struct PartialImport {
  report::PartialSet set;
  std::vector<Error> failures;  // one per input that could not be imported, in input order
  std::size_t inputs = 0;       // inputs read (each content once)
};

// `request.out_dir` is where converters may put their files (an .nsys-rep's
// export). Fails only on a bad configuration or a rank claimed twice.
Result<PartialImport> CollectPartial(const ImportRequest& request, const std::string& job, unsigned threads);

// The partial's reports in `request.out_dir`, as RunImport writes them
// (missing ranks reported); the files written.
Result<std::vector<std::string>> WritePartialReports(report::PartialSet set, const ImportRequest& request);

}  // namespace llmpo::pipeline
