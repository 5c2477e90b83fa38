#include "src/analysis/kernel_category.h"

#include <fmt/format.h>
#include <re2/re2.h>

namespace llmpo::analysis {

// Order matters: communication and attention before GEMM (FA3 is a
// cutlass::device_kernel<flash::...>), GEMM before activation
// (..._s16816gemm_relu_...). Source: analysis-reference §5.
const std::vector<CategoryRule>& DefaultCategoryRules() {
  static const std::vector<CategoryRule> rules = {
      {"communication", R"(nccl|all_?reduce|allgather|reduce_scatter|all2all|alltoall|cross_device_reduce)"},
      {std::string(kCopyCategory), R"(^\[CUDA mem(cpy|set)|^Memcpy |^Memset )"},
      {"attention",
       R"(flash::|flash_fwd|FlashAttn|fmha|[Aa]ttention|PagedKVCache|paged_attention|BatchPrefill|BatchDecode|xqa|mla)"},
      {"kv-cache", R"(reshape_and_cache)"},
      {"moe", R"(fused_moe|moe.*[Gg]emm|GroupProblemShape|[Gg]rouped)"},
      {"gemm", R"(^nvjet_|gemm|gemv|[Gg]emm[A-Z]|cublas|cutlass_[0-9]+_|xmma_|splitKreduce|^Cijk_|^bmm_)"},
      {"moe-routing", R"(topkGating|moe_align|expert|[Rr]outer|MoeRouting|expandInputRows|permute|routing)"},
      {"normalization", R"([Rr][Mm][Ss][Nn]orm|rms_norm|[Ll]ayer_?[Nn]orm|qknorm|group_norm)"},
      {"rotary", R"([Rr]otary|rope|RotaryPos)"},
      {"activation", R"(silu|gelu|swiglu|geglu|act_and_mul|relu)"},
      {"reduction",
       R"([Ss]oft[Mm]ax|reduce_kernel|[Rr]educe|topk|top_k|gatherTopK|argmax|[Ss]ort|[Ss]can|sampl|^triton_(red|per)_)"},
      {"embedding", R"([Ee]mbedding|index_elementwise|indexSelect|gather|scatter|index_put)"},
      {"elementwise", R"(elementwise_kernel|direct_copy|CatArrayBatchedCopy|FillFunctor|copy|cast_|^triton_poi_)"},
  };
  return rules;
}

Result<KernelCategorizer> KernelCategorizer::Create(const std::vector<CategoryRule>& first) {
  KernelCategorizer out;
  auto add = [&out](const CategoryRule& rule, bool user) -> Status {
    auto regex = std::make_shared<re2::RE2>(rule.pattern, re2::RE2::Quiet);
    if (rule.category.empty() || !regex->ok()) {
      const std::string why =
          rule.category.empty() ? "an empty category" : "a bad regular expression: " + regex->error();
      Error error = MakeError(ExitStatus::kUsage,
                              fmt::format("kernel category rule '{}' -> '{}': {}", rule.pattern, rule.category, why));
      if (!user) return error;  // the built-in table is tested; this would be our bug
      return std::move(error).WithNote("fix analysis.kernel_categories (a list of {category: NAME, pattern: RE2})");
    }
    out.rules_.push_back({rule.category, std::move(regex)});
    return OkStatus();
  };
  for (const auto& rule : first) RETURN_IF_ERROR(add(rule, true));
  for (const auto& rule : DefaultCategoryRules()) RETURN_IF_ERROR(add(rule, false));
  return out;
}

std::string_view KernelCategorizer::Categorize(std::string_view kernel_name) const {
  for (const auto& rule : rules_) {
    if (re2::RE2::PartialMatch(kernel_name, *rule.regex)) return rule.category;
  }
  return kOtherCategory;
}

std::string_view KernelCategorizer::Categorize(const model::LaunchRecord& launch) const {
  if (launch.kind == model::LaunchKind::kMemcpy || launch.kind == model::LaunchKind::kMemset) return kCopyCategory;
  return Categorize(launch.kernel_name);
}

}  // namespace llmpo::analysis
