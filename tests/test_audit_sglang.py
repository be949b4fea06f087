"""audit on the real code: sglang 0.5.9 from PyPI, for sm120, with no rule file at all.

The counts below were checked by hand (gatecheck's JSON next to the source); why each is
right is written next to it, so a change in the semantics that moves them is noticed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gatecheck.audit import AuditReport, GateClass, run_audit
from gatecheck.config.loader import load_ruleset
from tests.conftest import corpus_package

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def sglang() -> tuple[Path, AuditReport, float]:
    root = corpus_package("sglang==0.5.9")
    started = time.perf_counter()
    report = run_audit([root], load_ruleset([]), "sm120")  # registry only, no rules
    return root, report, time.perf_counter() - started


def place(root: Path, path: Path, line: int) -> str:
    return f"{path.resolve().relative_to(root.resolve()).as_posix()}:{line}"


def test_seed_gates_are_the_top_likely_gaps(sglang: tuple[Path, AuditReport, float]) -> None:
    root, report, _ = sglang
    top = [(place(root, g.path, g.start.line), g.gate_class) for g in report.gates[:2]]
    assert top == [
        ("sglang/srt/server_args.py:1691", GateClass.LIKELY_GAP),
        ("sglang/srt/layers/communicator.py:95", GateClass.LIKELY_GAP),
    ]
    # Without rules both are named by the flag they switch on / read: one feature row.
    assert {g.feature for g in report.gates[:2]} == {"enable_flashinfer_allreduce_fusion"}
    server_args, communicator = report.gates[:2]
    assert any("'is_sm120_supported'" in r for r in server_args.reasons)
    # The gate function's two callers are hops listed under it, not gates of their own;
    # so are the seven model files that keep the answer (`should_allreduce_fusion =
    # self.layer_communicator.should_fuse_mlp_allreduce_with_next_layer(...)`: a switch's
    # name, conditions.kept_answer) and their tests of it: the feature's whole path.
    models = [
        "bailing_moe.py:677",
        "bailing_moe.py:691",
        "bailing_moe_linear.py:854",
        "deepseek_v2.py:2408",
        "deepseek_v2.py:2429",
        "deepseek_v2.py:2432",
        "glm4_moe.py:793",
        "glm4_moe.py:807",
        "gpt_oss.py:481",
        "gpt_oss.py:488",
        "gpt_oss.py:491",
        "mimo_v2_flash.py:693",
        "mimo_v2_flash.py:707",
        "qwen3_moe.py:791",
        "qwen3_moe.py:805",
        "sdar_moe.py:419",
        "sdar_moe.py:434",
    ]
    assert sorted(place(root, s.path, s.line) for s in communicator.call_sites) == [
        "sglang/srt/layers/communicator.py:604",
        "sglang/srt/layers/communicator.py:810",
        *(f"sglang/srt/models/{m}" for m in models),
    ]


def test_likely_gaps_checked_by_hand(sglang: tuple[Path, AuditReport, float]) -> None:
    root, report, _ = sglang
    gaps = [
        place(root, g.path, g.start.line)
        for g in report.gates
        if g.gate_class is GateClass.LIKELY_GAP
    ]
    assert sorted(gaps) == sorted(
        [
            # The two seed gates: sm90 or sm100 predicates, and sm120's is imported.
            "sglang/srt/server_args.py:1691",
            "sglang/srt/layers/communicator.py:95",
            # `assert is_sm100_supported() or is_sm90_supported()` for the CUTLASS FP8 MoE
            # runner: an allowlist of two majors.
            "sglang/srt/layers/quantization/fp8.py:686",
            # FA4 (CuTe) backward: `assert compute_capability in [9, 10, 11]`.
            "sglang/jit_kernel/flash_attention/cute/interface.py:581",
            # FA4's backward refuses deterministic mode off sm100/sm110 "for now" (an
            # assert under `compute_capability not in [10, 11]`: flash-attn-4 4.0.0b5 let
            # sm90 through it).
            "sglang/jit_kernel/flash_attention/cute/interface.py:704",
            # NSA prefill `use_mha`: `device_sm == 90 or 100 <= device_sm < 110`.
            "sglang/srt/layers/attention/nsa_backend.py:2045",
            # `use_min_latency_fused_a_gemm`: `90 <= _device_sm < 120`, stops below sm120.
            "sglang/srt/models/deepseek_v2.py:1289",
            # MXFP8 `if not (_is_cuda and is_sm100_supported()): raise ...("... requires
            # Blackwell GPUs (SM100+)")`: the message asks for SM100+, which sm120 is (0.5.12
            # widened it to SM120); the same message on the MXFP8 test's skip.
            "sglang/srt/layers/quantization/fp8_utils.py:665",
            "sglang/test/test_block_fp8.py:455",
            # `if not is_sm100_supported(): raise ValueError("TRTLLM MHA backend is only
            # supported on Blackwell GPUs (SM100)...")`: the message promises Blackwell, sm120
            # is one (0.5.12 lets trtllm_mha decode run on SM90, SM100 and SM120).
            "sglang/srt/server_args.py:1899",
            # multimodal platform: `if cls.is_sm120():` falls back to Torch SDPA under the
            # comment "the sgl-kernel FlashAttention wheels may not include support yet" (a
            # gap with a TODO); `... and cls.is_blackwell()` where is_blackwell is major 10
            # only: named for the family, it leaves sm120 out (0.5.23 adds is_sm120()).
            "sglang/multimodal_gen/runtime/platforms/cuda.py:313",
            "sglang/multimodal_gen/runtime/platforms/cuda.py:332",
            # if/elif chains of one-major tests: GPT-OSS's `if is_sm100_supported():
            # trtllm_mha / elif is_sm90_supported(): fa3 / else: triton`, the MHA default
            # backend chain (sm90 fa3, sm100 trtllm_mha), and the triton MXFP4 swizzle
            # constraints (`_is_sm100_supported` / `_is_sm90_supported`, the shape vLLM
            # widened to SM120 later): sm120 falls to the generic branch of each.
            "sglang/srt/server_args.py:1336",
            "sglang/srt/server_args.py:1338",
            "sglang/srt/server_args.py:1805",
            "sglang/srt/layers/quantization/mxfp4.py:149",
            "sglang/srt/layers/quantization/mxfp4.py:155",
            # Since `cutlass.const_expr` reads as the identity it is (idioms/cute_dsl_arch.py):
            # the FA4 backward postprocess kernel's per-arch branches, `const_expr(self.arch
            # == 80)` / `== 90` chains and `self.arch in [80, 90]`, `arch` being what every
            # caller passes (`compute_capability * 10`, the constructor's
            # `arch in [80, 90, 100]` at line 50 below): each reader of that one decision is a
            # row of its own, as `if self.arch == 80:` always was.
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:85",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:97",
            # (:121 `if const_expr(self.arch in [80, 90]): assert self.num_threads ==
            # tiled_mma.size` only asserts: it checks its path and turns nothing on or off,
            # branches.only_asserts.)
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:145",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:150",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:182",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:187",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:307",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:386",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:414",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:436",
            # Parameters given the value every caller passes (semantics/callers.py): the FA4
            # CuTe forward's `compute_capability = _get_device_capability() if
            # _compute_capability is None else ...` (no caller passes it: the default), its
            # `in [9, 10, 11]` assert (sglang 0.5.16 widened it to 12) and `in [10, 11]`
            # branches; the backward postprocess constructor's `arch in [80, 90, 100]`
            # (every caller passes `compute_capability * 10`); pdmux's
            # `get_arch_constraints(compute_capability)` ladder `major == 8` / `major == 9`
            # (its callers pass torch.cuda.get_device_capability()), sm120 to its else;
            # its `major == 7` branch too since stop 70 (a test of majors 7 and 6 listed
            # one by one is no older-hardware cut-off, though it admits everything up to
            # sm75: the chain ends in `raise ValueError("Unsupported compute capability")`).
            "sglang/jit_kernel/flash_attention/cute/interface.py:251",
            "sglang/jit_kernel/flash_attention/cute/interface.py:274",
            "sglang/jit_kernel/flash_attention/cute/interface.py:430",
            "sglang/jit_kernel/flash_attention/cute/interface.py:454",
            "sglang/jit_kernel/flash_attention/cute/flash_bwd_postprocess.py:50",
            "sglang/srt/multiplex/pdmux_context.py:60",
            "sglang/srt/multiplex/pdmux_context.py:62",
            "sglang/srt/multiplex/pdmux_context.py:64",
            # server_args' `is_sm100_supported()` default picks (backends, MoE runners,
            # DeepGEMM defaults) with no evidence of their own: they admit only sm100 and
            # sm103, Blackwell like sm120, in a module that tests sm120 elsewhere, a likely
            # gap ranked last (audit/classify.py; release history: 3 of 55 such gates
            # widened by the next release). 0.5.12 widened :1823 (the MLA backend choice).
            "sglang/srt/server_args.py:1277",
            "sglang/srt/server_args.py:1289",
            "sglang/srt/server_args.py:1449",
            "sglang/srt/server_args.py:1469",
            "sglang/srt/server_args.py:1507",
            "sglang/srt/server_args.py:1562",
            "sglang/srt/server_args.py:1584",
            "sglang/srt/server_args.py:1608",
            "sglang/srt/server_args.py:1707",
            "sglang/srt/server_args.py:1823",
            # The vendored fla `check_shared_mem()`: the device's shared memory per block
            # against `Backend.get_shared_memory("none")`, whose `cls["NONE"]` raises
            # KeyError and so is always the 102,400 B default (semantics/raising.py).
            # sm120's 101,376 B is 1 KB short: chunk_o.py and cumsum.py take the smaller
            # block sizes there (hops). A capacity, but a default chosen 1 KB above it.
            "sglang/srt/layers/attention/fla/utils.py:304",
            # `self.world_size not in TORCH_SYMM_MEM_ALL_REDUCE_MAX_SIZES[capability]`: a
            # table with majors 9 and 10 only, a KeyError on sm110/sm120/sm121 (a lookup
            # that misses raises: semantics/expressions.py).
            "sglang/srt/distributed/device_communicators/torch_symm_mem.py:82",
            # The multimodal `elif cls.is_blackwell():` (major 10) right after the
            # `if cls.is_sm120():` TODO fallback above: only reached past that likely gap,
            # the next gate a fix meets (classify._behind_likely_gaps), ranked last.
            "sglang/multimodal_gen/runtime/platforms/cuda.py:318",
            # `"flashinfer" if is_sm100_supported() else "triton"`, the HiCache decode
            # backend default: a name picked is a path, not a message (classify.
            # _message_or_number); a family-sibling gate in a module that tests sm120.
            "sglang/srt/server_args.py:2309",
            # The multimodal platform's own `def is_blackwell(cls): return
            # torch.cuda.get_device_capability()[0] == 10`: a device predicate's definition
            # is a row of its own (audit/run.py), named for the family and leaving sm120
            # out; cuda.py:332 above is its use.
            "sglang/multimodal_gen/runtime/platforms/interface.py:136",
        ]
    )


def test_counts_checked_by_hand(sglang: tuple[Path, AuditReport, float]) -> None:
    _, report, seconds = sglang
    counts = {c.value: n for c, n in report.counts().items()}
    assert counts == {
        # listed one by one above (49 until an assert-only branch; 49 again since the
        # branch refusing the caller's option, FA4's `assert deterministic is False`;
        # 50 with pdmux_context.py:60, stop 70)
        "likely-gap": 50,
        # 50 = single-generation gates (server_args' `is_sm100_supported()` /
        # `is_sm90_supported()` / `is_hopper_with_cuda_12_3()` backend picks: sm120's
        # predicate is used elsewhere in that module, so they stay deliberate; sm90-only
        # CuTe paths `compute_capability == 9`), older-hardware branches (`major < 8`),
        # gates only reached inside one, and the multimodal `if cls.is_sm120():` whose
        # message says "FlashAttention is not supported on SM12.x in this build"; and
        # deepseek_v2.py:2868 `(not _is_cuda or cap < (8, 0)) and (not _is_hip or cap <
        # (9, 4))`, an older-hardware fallback once its unknowns are free variables.
        # Since parameters take their callers' values: + the FA4 forward's
        # `compute_capability == 9` / `== 10` tile choices (interface.py:270, :289) and
        # pdmux's `major == 7` (pdmux_context.py:60); - interface.py:644 `compute_capability
        # == 9 and use_block_sparsity` (`block_sparse_tensors is not None`, no caller passes
        # block_sparse_tensors: decided).
        # 56 since a flag re-bound under ifs keeps its device dependence (flow.py): the FA4
        # SM100 kernel's q_stage checks (flash_fwd_sm100.py:105, :171, :235, :244, :251),
        # q_stage being 2-or-1 on sm100 and 1 elsewhere in interface.py's caller; and -1:
        # fused_marlin_moe.py:142 below.
        # 72: + 16 conditions `cutlass.const_expr` hid in the FA4 CuTe kernels (a
        # `const_expr(self.q_stage == 2)` or `const_expr(self.uneven_kv_smem)` whose value
        # the generation decides through the constructor, single-generation tile choices).
        # 74: + fpgemm_fp8.py:170/:182 `self.quant_config.use_marlin`, `force or
        # can_auto_enable_marlin_fp8()` with `force` read from SGLANG_FORCE_FP8_MARLIN:
        # read with no environment variable set (semantics/environment.py), sm80-87.
        # 64: - the 10 server_args `is_sm100_supported()` picks above, now likely gaps (the
        # sm90 and `is_hopper_with_cuda_12_3()` ones stay: another family).
        # 65: + marlin_utils.py:89 `device_capability < 80`, the parameter whose None
        # default query_marlin_supported_quant_types fills with the device's SM number.
        # 64: - flash_fwd_sm100.py:105 `assert self.q_stage in [1, 2]`: each caller's
        # q_stage, 1 or 2, is in the list (one of a few constants in a list: each one's).
        # 83: + 21 gates that tell AMD generations apart (`_use_aiter and
        # _is_gfx95_supported`, `'gfx94' in ...gcnArchName`, quick_all_reduce.py:35's
        # `any(gfx in gcn_arch ...)`): another vendor's gates, no longer vendor gates
        # (conditions.other_vendor_told_apart); - server_args.py:2309 (a likely gap above,
        # was "only picks a message") and cuda.py:318 (behind a likely gap, above).
        # 84: + the multimodal platform's `def is_hopper(cls)` body, `== (9, 0)` (a device
        # predicate's definition, now a row: a single-generation gate).
        # 85: + attention_registry.py:130, FA3's `assert (major == 8 and not mla) or
        # major == 9` with "FlashAttention v3 Backend requires SM>=80 and SM<=90": the
        # words stop below sm120 (evidence.sets_a_ceiling), Ampere/Hopper by design (a
        # likely gap, two majors, until then).
        # 114: + 29 FA4 backward layout choices (`self.SdP_swapAB`, `self.dQ_swapAB`,
        # `self.Mma_dKV_is_RS`, `const_expr(swapAB)` in flash_bwd.py, flash_bwd_sm90.py,
        # flash_bwd_postprocess.py, utils.py): parameters the caller re-binds under its
        # `compute_capability == 9` tests, read from there (flow.py), single-generation
        # or inside an sm90 kernel.
        # 118: + 4 device predicates bound by a call in utils/common.py
        # (`is_sm100_supported = lru_cache(maxsize=1)(partial(_check_cuda_device_version,
        # device_capability_majors=[10], ...))`, is_sm90_supported, is_hopper_with_cuda_12_3,
        # is_ampere_with_cuda_12_3): their definitions, single-generation gates.
        # 119: + diffusers_pipeline.py:573, `torch.bfloat16 if
        # torch.cuda.is_bf16_supported() else torch.float16` (idioms/bf16_support.py): an
        # older-hardware branch.
        # 123: + fused_moe_triton_kernels.py:518, :562, :571, :584 `if swap_ab:` in
        # fused_moe_kernel, launched with `swap_ab=swap_ab, **config` (a keyword beside a
        # `**` that cannot be read gives the parameter: callers._argument), swap_ab
        # `should_enable_swap_ab(...)`, sm90 only.
        # 125: + the FA4 copy's flash_fwd.py:1352, :1356 `self.arch >= 90 and ...` in the
        # Hopper forward class (`arch = 90`; the base's `arch: int = 80`), made only in
        # interface.py's `if compute_capability == 9:` branch: sm90 and the gfx9 parts
        # (semantics/instance_classes.py), single-generation.
        # 124: - pdmux_context.py:60 `major == 7`, a likely gap above (stop 70).
        "probably-deliberate": 124,
        "decided": 0,  # no rules, no `# gatecheck: ignore` comments in sglang
        # 56: `is_blackwell()` (majors 10, 11, 12), `major >= 9` / `>= 8` cut-offs, and
        # `if sm_version < 90: return False` exits (the feature is where it is false);
        # moe_wna16.py:187 `device_capability >= awq_min_capability`, its capability read
        # through `all(capability is None for capability in capability_tuple)`; and bodies
        # that disable without raise (issue 17 item 4): Nunchaku's `major == 9` / `major not
        # in (8, 12)` branches that `unsupported.append(...)`, `if compute_capability[0] <
        # 9: self.skipTest(...)`, `if not has_device_capability(80): ... = TORCH_SDPA`.
        # Plus (issue 17 item 3, unknown operands read as free variables)
        # single_batch_overlap.py:38 and :52 `is_sbo_enabled() and not is_blackwell()` and
        # fla/utils.py:263 `is_nvidia and ("NVIDIA H" in name or major >= 9)`: Unknown on
        # every generation three-valued, yet they depend on the generation.
        # jit_kernel/tests/test_flash_attention_4.py:16 `skip_condition = cap < (10, 0)`:
        # a name for an off state, so the test runs where it is false (sm100 up).
        # Since parameters take their callers' values: + flash_bwd_postprocess.py:164
        # `self.num_threads == 128`, and the `scale_ue8m0` parameters of ep_moe/kernels.py:736
        # and fp8_kernel.py:437 (now read from their callers' arguments, which depend on the
        # generation).
        # + fused_marlin_moe.py:142 `use_atomic_add = dtype == half or major >= 9`: an
        # assignment takes its polarity from its name (enables, true on every generation),
        # no longer from the operators (disables, sm70-89).
        # + modelopt_quant.py:146 `is_cuda() and not is_sm120_supported() and fp4_quantize
        # is not None`: false on AMD, Unknown on every NVIDIA part, read with its unknowns
        # free once one vendor is all Unknown (it was a vendor check).
        # 65: + 3 the same way (flash_bwd_postprocess.py:345 and flash_bwd_preprocess.py:244
        # `cutlass.const_expr(self.arch >= 90)`, flash_fwd_sm100.py:1047's q_stage).
        # 67: + multimodal_gen/runtime/platforms/cuda.py:350 and :372, `target_backend ==
        # AttentionBackendEnum.FA` / `.TORCH_SDPA` after `if not cls.has_device_capability(80):
        # target_backend = TORCH_SDPA` (flow.py now reads the function's `try` around the
        # FlashAttention import instead of meeting every binding).
        # 69: + server_args.py:1143 and :1166 `major >= 10`, in a method whose `major` is
        # now read from its callers (callers.py follows a method's calls, 2d6813c).
        # 95: + 26 declared least capabilities, `def get_min_capability(cls): return 80`
        # of the quantization configs and schemes: 2 at 75 (awq.py:139, w8a8_int8.py:87),
        # 12 at 80, 5 at 89 (w8a8_fp8.py:67, ...), 2 at 90 (petit.py:65, w4afp8.py:71),
        # 4 at 100 (the FP4 schemes: sm100 up) and fp8.py:158 `100 if self.use_mxfp8
        # else 80` (at least 80). The others return -1 / 60 / 70 (every generation: no
        # row) or delegate (hops).
        # 99: + fp8_utils.py:1099, :1111, :1146, apply_fp8_linear's `cutlass_fp8_supported`
        # parameter, whose default `cutlass_fp8_supported()` calls the module's predicate
        # (a name in a default is read where the def runs), and compressed_tensors.py:332
        # `capability >= min_capability`, `DeviceCapability(*cap).to_int()` (the
        # capability unpacked into a call).
        # 104: + jit_kernel/kvcache.py:21, norm.py:21 and :32 `is_arch_support_pdl()`
        # passed as an argument (a device predicate's answer, conditions.
        # condition_arguments; sm90 up); deepseek_v2.py:1727 and :2876, which tell AMD
        # generations apart and let every NVIDIA one through.
        # 107: + jit_kernel/flash_attention/cute/utils.py:145 `const_expr(arch < 90 or
        # ...)`, `arch` what its callers read pass (the device's SM number) where one
        # cannot be read (callers.DeviceFromSomeCallers); + two predicates' own tests,
        # jit_kernel/utils.py:183 `is_arch_support_pdl` (`>= 9`) and the multimodal
        # platform's `is_sm120` (`== 12`).
        # 125: + 17 of those layout choices that admit sm120 (`not self.SdP_swapAB`,
        # `const_expr(not self.mma_dkv_is_rs)`) and flash_bwd_postprocess.py:121 `if
        # const_expr(self.arch in [80, 90]): assert self.num_threads == ...`, a branch
        # that only asserts: it turns nothing on or off (was a likely gap, "enumerates 2
        # majors").
        # 127: + is_blackwell_supported's and is_sm120_supported's bindings (majors [10, 11,
        # 12] and [12]), their definitions.
        # 127: + model_loader/loader.py:235 `capability < quant_config.
        # get_min_capability()` (a config's least capability, raised on: the device's
        # value against data nothing decides, read inside the function now).
        # 131: + fp8_kernel.py:615, :627, :656, :683 `REPEAT_SCALE` / `repeat_scale`,
        # which the model passes `cutlass_fp8_supported` (sm89 up) and a test `True`:
        # a parameter is what the callers outside the tests pass (callers.py).
        # 137: + the Marlin checks (marlin_utils.py:131 `quant_type not in
        # supported_types`, a helper's `[]` below sm80; :165, and the `check_marlin_
        # supported(...)` callers in awq.py, gptq.py and auto_round.py), once a value not
        # known is never in an empty container (expressions.py).
        "admits": 137,  # - FA4's deterministic refusal, now a likely gap
        # The vendor gates below, listed since they are rows of their own class: 266,
        # then the 21 whose feature may be on everywhere through an unknown operand too
        # (`is_hip() and self.quantization not in rocm_supported_quantization: raise`,
        # `not _is_cuda or isinstance(...)`).
        # 322: + 6 in the four files that test only `torch.version.hip`/`.cuda`
        # (multimodal_gen/utils.py, pynccl_wrapper.py; the prefilter reads vendor idioms),
        # + 29 in the NSA indexer and MoE files that test `_is_fp8_fnuz` (a name telling
        # AMD generations apart brings its files in: widening.py).
        # 323: + extend_attention.py:536 `STORE_TRANSPOSE`, passed beside `**extra_kargs`.
        # 324: + multimodal_gen's attention/selector.py:155 `not attention_cls`, the
        # platform's backend string (up to 16 objects kept as one of several: logic.py).
        # 316: - 8 of awq.py, gptq.py and moe_wna16.py's Marlin-compatibility tests,
        # hops under those Marlin rows now.
        "vendor": 316,
        # pdmux_context.py:58 `major == 6`: a Pascal part, outside the registry.
        "constant": 1,
    }
    # `_is_hip`, `_is_cuda`, `_use_aiter` checks tell vendors apart, not generations;
    # 2 of them are multimodal_gen's `current_platform.is_cuda()` (gpu_worker.py:471,
    # configs/quantization.py:80), read through the runtime platform dispatch, 2 are
    # forward_mha.py's `_is_cuda or _use_aiter_gfx95` (a gfx95 test over gcnArchName,
    # `any(...)` over a list, that only AMD generations can pass).
    # 331: 22 more once unknown operands are free variables (issue 17 item 3): vendor tests
    # combined with flags, e.g. `_is_cuda and get_bool_env_var(...)`.
    # 336: + fp8.py:578/:591 `self.use_marlin` and fpgemm_fp8.py:170/:182
    # `self.quant_config.use_marlin` (set in __init__ under ifs, read through flow.py),
    # deepseek_v2.py:2669 `has_gemm_output_zero_allocator and ...`.
    # 360: + the vendor tests of the 10 files searched for a name that carries the device.
    # 365: fla/utils.py's platform strings are one of a few constants (`get_available_device()`
    # is the triton backend or "cpu"), so `device == 'cuda'`, `device == 'hip'`,
    # `get_available_device() != 'hip'`, `is_nvidia and FLA_USE_CUDA_GRAPH` and the
    # `is_nvidia_hopper` readers in chunk_delta_h.py / chunk_o.py tell vendors apart (+6);
    # - modelopt_quant.py:146, now a gate.
    # 364: the `is_nvidia_hopper` reader in chunk_delta_h.py is a hop since 1c6a68e (an
    # imported global is split where it is bound, see below).
    # 360: - fpgemm_fp8.py:170/:182 (rows above) and fp8.py:578/:591 (hops below), Unknown
    # on every NVIDIA part until read with no environment variable set.
    # 361: + torch_symm_mem.py:61 `not torch_symm_mem_available`, set under `try:` (True
    # where `_is_cuda`, False in the ImportError handler): flow.py reads the `try`.
    # 354: torch.version.hip is a release string on ROCm (not unknown), so the seven
    # `_is_cuda or _is_hip` / `is_cuda_alike()` tests (custom_all_reduce.py:143,
    # quick_all_reduce.py:158, parallel_state.py:245, prefill_attention.py:30,
    # flashinfer_trtllm.py:39, bailing_moe_linear.py:1095, longcat_flash*.py) are true on
    # every generation, and deepseek_weight_loader.py:439 `awq_dequantize_f is not None`
    # (an external name, compared) tells nothing; + the `any(gfx in gcn_arch ...)` returns
    # (quick_all_reduce.py:35, common.py:3595, now slots), nsa_backend.py:1239; the
    # common.py:3813 env test no longer counts.
    # 357: + gptq.py:383/:391 `... and can_convert and ...` and moe_wna16.py:206
    # `self.use_marlin`, both set from is_gptq_marlin_compatible, whose `(num_bits, sym)
    # not in TYPE_MAP` (a tuple with unknown items) was always true by Python's own `in`;
    # it is now compared item by item, unknown here, and the ROCm test beside it shows.
    # 287: - the 21 rows above and the tests that only pass their answers on (hops).
    # 322: + the 35 vendor rows above.
    # 323: + extend_attention.py:536 (above).
    # 324: + attention/selector.py:155 (above).
    # 316: - the 8 Marlin-compatibility tests now hops (above).
    assert report.vendor_gates == 316
    # 48 call sites only pass a gate on: ENABLE_JIT_DEEPGEMM / DEEPGEMM_SCALE_UE8M0
    # readers, `should_deepgemm_weight_requant_ue8m0(...)`, `self.use_mha`, ...; since
    # conditions passed as call arguments are read (issue 17 item 2), also
    # `skipif(skip_condition)` and `ENABLE_JIT_DEEPGEMM and DEEPGEMM_BLACKWELL` arguments.
    # 54: + readers of flags set to constants under a gate's if (hops.py): glm4_moe_lite.py:536
    # `disable_reason is not None`, longcat_flash_nextn.py:413 `not use_deep_gemm_bmm`,
    # flash_fwd_sm100.py:248/:421 `self.uneven_kv_smem`; deepseek_v2.py:2429/:2432
    # `should_allreduce_fusion`, a call through `self.layer_communicator` (one of two
    # communicator classes, values.OneOf) of the allreduce-fusion gate function.
    # 68: + the readers in files that spell no arch idiom (audit/widening.py):
    # ep_moe/layer.py:104/:141 and compile_utils.py:21 `ENABLE_JIT_DEEPGEMM`,
    # moe_runner/deep_gemm.py:168/:205/:244/:319/:534 `DEEPGEMM_SCALE_UE8M0`, and
    # `should_allreduce_fusion` in bailing_moe.py:691, gpt_oss.py:488/:491,
    # mimo_v2_flash.py:707, qwen3_moe.py:805 and sdar_moe.py:434.
    # 71: + `disable_reason is not None` in deepseek_v2.py:2886, glm4_moe.py:1051 and
    # glm4v_moe.py:105 (the reason is a string or None as the generation decides).
    # 73: + chunk_delta_h.py:18 and chunk_o.py:16, readers of fla/utils.py's
    # `is_nvidia_hopper` (`is_nvidia and ("NVIDIA H" in name or major >= 9)`, a row found
    # with its unknowns free): the imported name now splits as its definition does.
    # 75: + fp8.py:578/:591 `self.use_marlin`, set like fpgemm_fp8.py's (see above).
    # 77: + quark.py:181 `error and not supported` and :334 `if is_fp8_w8a8_supported`:
    # `capability >= min_capability` in _check_scheme_supported is the row since its
    # callers' minimums are read through the scheme objects (one of them, logic.either).
    # 79: + fla chunk_o.py:15 and cumsum.py:14, `... if check_shared_mem() else ...`
    # block sizes, readers of the fla/utils.py:304 row (see the likely gaps above).
    # 80: + ep_moe/layer.py:111 `if self.deprecate_flag: return` in __init__, right after
    # the if/elif/else that sets it from `deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM`: a read
    # after every binding of the block is what the block leaves (flow.value_after).
    # 84: + compressed_tensors.py:333 `error and not supported`, :566 and :577 readers of
    # `_check_scheme_supported` (its capability unpacked into DeviceCapability(*cap) is
    # read now), fp8_utils.py:1102 `pad_output` (set from the `cutlass_fp8_supported`
    # parameter, whose default calls the module's predicate).
    # 159: + 54 readers of the AMD-generation gates above (`if _use_aiter_gfx95:`, ...);
    # + the answers of gate functions kept under a switch's name (conditions.
    # kept_answer): `should_allreduce_fusion = self.layer_communicator.
    # should_fuse_mlp_allreduce_with_next_layer(...)` in 7 model files (the seed's path),
    # `... = cutlass_fp8_supported()` in 6 quantization files, configurer.py:22
    # `_compute_enable_deep_gemm()`, quick_all_reduce.py:90, compressed_tensors.py:563/
    # :574 and quark.py:331 `_check_scheme_supported(...)`, forward_mha.py:396/:421.
    # 169: + readers of `_is_fp8_fnuz` / `is_fp8_fnuz()` (gfx942) in the files the
    # widening brings in (index_buf_accessor.py:370/:381, nsa_indexer.py:531,
    # kv_cache.py:52/:68, test_custom_ops.py:12), quantization/__init__.py:47/:81 of
    # `mxfp_supported()`, flash_bwd_sm90.py:249/:257 `self.mma_dkv_is_rs`.
    # 171: + `if not use_deep_gemm_bmm:` in deepseek_weight_loader.py:569 and
    # longcat_flash.py:746, a flag set False then True under the DeepGEMM-Blackwell test
    # inside the loop over the layers (flow.py reads loops).
    # 188: + 17 readers of the Marlin checks, rows since a value not known is never in
    # an empty container (`[]` below sm80): awq.py:270/:275/:283, gptq.py:377/:383/:391,
    # moe_wna16.py:91/:206, auto_round.py's 8 `use_marlin` readers, marlin_utils.py:164.
    assert len(report.hops) == 188
    # Bodies of device predicates (is_hip, is_cuda, Platform.is_blackwell, ...) and aliases
    # such as `_is_sm100_supported = _is_cuda and is_sm100_supported()`.
    # 18: + fla/utils.py's `is_amd = device_platform == "amd"` and `is_nvidia = ...`.
    # 22: + four `_is_gfx95_supported = is_gfx95_supported()` aliases (communicator.py,
    # tilelang_kernel.py, bailing_moe_linear.py, deepseek_common/utils.py): answers kept
    # under a switch's name (conditions.kept_answer), a predicate's name: definitions.
    # 18: - the four predicates' own tests now listed as rows (the multimodal platform's
    # is_blackwell, is_hopper and is_sm120, jit_kernel's is_arch_support_pdl); the others
    # are aliases or tell only vendors apart.
    # 19: + one in the files the vendor idioms bring in.
    assert report.predicate_definitions == 19
    # The 163 files that spell an arch idiom, and 11 that spell a name found to carry the
    # device (ENABLE_JIT_DEEPGEMM among them, and cumsum.py's `check_shared_mem`;
    # `should_allreduce_fusion` is a local of the model files, reached through the
    # function that computes it). 176: + mem_cache/multimodal_cache.py and
    # models/minicpmv.py, which spell `max_size`, torch_symm_mem.py's `self.max_size`
    # (its table's row: a KeyError on the majors the table lacks), a device name now;
    # nothing in them is a gate.
    # 188: + 4 that test only vendor idioms (`torch.version.hip`, Triton's
    # `get_current_target()`, `target_info`), + 8 that spell a name telling AMD
    # generations apart (`_is_fp8_fnuz`, `is_fp8_fnuz`, `mxfp_supported`).
    # 189: + diffusers_pipeline.py, which spells `torch.cuda.is_bf16_supported`.
    # 190: + the multimodal attention selector.py, which calls
    # `current_platform.get_attn_backend_cls_str`: defined in six platform classes, three
    # of them named for platforms no generation is (MPS, NPU, MUSA), it is no protocol's
    # name (widening._defined_names).
    assert (report.files, report.scanned) == (1404, 190)
    assert "ENABLE_JIT_DEEPGEMM" in report.device_names
    assert "should_allreduce_fusion" not in report.device_names
    assert not report.diagnostics
    # Time is measured in benchmarks/, never asserted here.
    print(f"audit of sglang 0.5.9 for sm120: {seconds:.1f} s")
