"""Gates without an `if` as audit rows: kernel declarations (capability decorators, build
arch lists, AOT build flags) and conditions passed as call arguments (test markers), each
with its admitted set; and the shapes that must not become rows."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.audit import AuditReport, run_audit
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_markdown import render_audit_markdown

MakeTree = Callable[[Mapping[str, str]], Path]
OLDER_THAN_SM100 = ("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90")
SM89_AND_NEWER = ("sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121")
AMD = ("gfx90a", "gfx942", "gfx950")  # capability (9, 0), (9, 4), (9, 5): 90, 94, 95

UTILS = """\
import torch


def get_compute_capability(device=None):
    return torch.cuda.get_device_capability(device)


def supported_compute_capability(ccs):
    def wrap(check):
        return check

    return wrap


def get_nvcc_flags_list(supported_major_versions=None):
    return []
"""
IMPORTS = (
    "import pytest\nimport unittest\nimport torch\n"
    "from pkg.utils import get_compute_capability, get_nvcc_flags_list,"
    " supported_compute_capability\n"
)


def audit(make_tree: MakeTree, source: str, generation: str = "sm120") -> AuditReport:
    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": UTILS,
            "pkg/mod.py": IMPORTS + textwrap.dedent(source),
        }
    )
    return run_audit([root], load_ruleset([]), generation)


def rows(report: AuditReport) -> list[tuple[str, str, list[str]]]:
    """(kind, condition, the condition's admitted set) of the rows of mod.py."""
    return sorted(
        (
            g.found.kind.value,
            g.condition,
            report.registry.ordered(g.found.admission.can_be_true),
        )
        for g in report.gates
        if g.path.name == "mod.py"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            """\
            @supported_compute_capability([100, 103])
            def _requirement(a):
                return True
            """,
            [("decorator", "supported_compute_capability([100, 103])", ["sm100", "sm103"])],
            id="decorator-sm-integers",
        ),
        pytest.param(
            """\
            SM10X = [100, 103, 110]


            @supported_compute_capability(SM10X)
            def _requirement(a):
                return True
            """,
            [("decorator", "supported_compute_capability(SM10X)", ["sm100", "sm103", "sm110"])],
            id="decorator-named-constant-list",
        ),
        pytest.param(
            """\
            SM90A_FLAGS = ["-gencode=arch=compute_90a,code=sm_90a", "-O3"]


            def gen_attn(build, page):
                return build("attn", extra_cuda_cflags=[f"-DPAGE={page}"] + SM90A_FLAGS)
            """,
            [
                (
                    "build",
                    "extra_cuda_cflags=[f'-DPAGE={page}'] + SM90A_FLAGS",
                    ["sm90"],
                )
            ],
            # FlashInfer 0.4's XQA module, built for sm90a; a define of a value not read is
            # still a define.
            id="gencode-flags-arch-specific",
        ),
        pytest.param(
            """\
            SWORDFISH_ARCH_FLAGS = (
                "-gencode=arch=compute_100a,code=sm_100a",
                "-gencode=arch=compute_103a,code=sm_103a",
            )


            def flags():
                return SWORDFISH_ARCH_FLAGS
            """,
            [
                (
                    "build",
                    "('-gencode=arch=compute_100a,code=sm_100a', "
                    "'-gencode=arch=compute_103a,code=sm_103a')",
                    ["sm100", "sm103"],
                )
            ],
            # gptqmodel's, handed to a wrapper class that builds later (recall study, L1)
            id="a-flag-list-whose-build-is-elsewhere",
        ),
        pytest.param(
            """\
            import subprocess


            def build(src, out):
                flags = ["-std=c++17", "-O3", "-gencode=arch=compute_90a,code=sm_90a"]
                subprocess.check_call(["/usr/local/cuda/bin/nvcc", *flags, src, "-o", out])
            """,
            [
                (
                    "build",
                    "['/usr/local/cuda/bin/nvcc', *flags, src, '-o', out]",
                    ["sm90"],
                )
            ],
            # deep_gemm's JIT: nvcc run as a command, its flags spread into it
            id="an-nvcc-command",
        ),
        pytest.param(
            """\
            class Ext:
                ARCH_FLAGS = ["-arch=sm_90a", "-O3"]
            """,
            [("build", "['-arch=sm_90a', '-O3']", ["sm90"])],
            id="a-class-flag-list",
        ),
        pytest.param(
            """\
            SM90A = ["-gencode=arch=compute_90a,code=sm_90a"]
            SM100A = ["-gencode=arch=compute_100a,code=sm_100a"]


            def gen(build, fp16, wide):
                if fp16:
                    dtype = ["-DINPUT_FP16=1"]
                else:
                    dtype = ["-DINPUT_FP16=0"]
                arch = SM100A if wide else SM90A
                return build("k", extra_cuda_cflags=dtype + arch)
            """,
            [("build", "extra_cuda_cflags=dtype + arch", ["sm90", "sm100"])],
            id="gencode-flags-set-in-branches",  # every option of each way: one is built
        ),
        pytest.param(
            """\
            def gen(build):
                return build(
                    "k",
                    nvcc_flags=[
                        "-gencode", "arch=compute_100f,code=sm_100f",
                        "--generate-code=arch=compute_80,code=[sm_80,compute_80]",
                    ],
                )
            """,
            [
                (
                    "build",
                    "nvcc_flags=['-gencode', 'arch=compute_100f,code=sm_100f', "
                    "'--generate-code=arch=compute_80,code=[sm_80,compute_80]']",
                    ["sm80", "sm86", "sm87", *SM89_AND_NEWER],
                )
            ],
            id="gencode-family-and-ptx",  # the PTX of compute_80 runs on every later part
        ),
        pytest.param(
            """\
            import os


            def archs():
                return os.getenv("ARCHS", "80;120").split(";")


            def flags(build):
                cc_flag = []
                if "80" in archs():
                    cc_flag.append("-gencode")
                    cc_flag.append("arch=compute_80,code=sm_80")
                if "120" in archs():
                    cc_flag.extend(["-gencode", "arch=compute_120a,code=sm_120a"])
                cc_flag.append("--generate-code=arch=compute_100,code=sm_100")
                return build("k", extra_compile_args={"nvcc": ["-O3"] + cc_flag})
            """,
            [
                ("build", "'--generate-code=arch=compute_100,code=sm_100'", ["sm100", "sm103"]),
                ("build", "'arch=compute_120a,code=sm_120a'", ["sm120"]),
                ("build", "'arch=compute_80,code=sm_80'", ["sm80", "sm86", "sm87", "sm89"]),
            ],
            id="gencode-options-appended-one-at-a-time",  # flash-attn's setup.py
        ),
        pytest.param(
            """\
            import os
            import subprocess


            def build(src, out, compiler):
                nvcc_flags = [
                    "-O3",
                    "-gencode=arch=compute_90a,code=sm_90a",
                    "--ptxas-options=-v" + (",--verbose" if os.getenv("VERBOSE") else ""),
                ]
                command = [compiler, src, "-o", out, *nvcc_flags]
                subprocess.check_call(command)
            """,
            [
                (
                    "build",
                    "['-O3', '-gencode=arch=compute_90a,code=sm_90a', '--ptxas-options=-v' + "
                    "(',--verbose' if os.getenv('VERBOSE') else '')]",
                    ["sm90"],
                )
            ],
            id="a-function-s-flag-list",  # deep_gemm 1.0's JIT compiler
        ),
        pytest.param(
            """\
            from torch.utils.cpp_extension import CUDAExtension

            flags = []
            flags += ["-gencode", "arch=compute_80,code=sm_80"]
            flags += ["-gencode", "arch=compute_120,code=sm_120"]
            flags += ["-O3"]
            flags -= ["-gencode", "arch=compute_90,code=sm_90"]
            EXT = CUDAExtension("ext._C", ["k.cu"], extra_compile_args={"nvcc": flags})
            """,
            [
                ("build", "['-gencode', 'arch=compute_120,code=sm_120']", ["sm120", "sm121"]),
                (
                    "build",
                    "['-gencode', 'arch=compute_80,code=sm_80']",
                    ["sm80", "sm86", "sm87", "sm89"],
                ),
            ],
            id="a-flag-list-grown-by-plus-equals",
        ),
        pytest.param(
            """\
            def gen(build):
                return build("k", extra_compile_args={"cxx": ["-O3"], "nvcc": ["-arch=sm_89"]})
            """,
            [
                (
                    "build",
                    "extra_compile_args={'cxx': ['-O3'], 'nvcc': ['-arch=sm_89']}",
                    list(SM89_AND_NEWER),
                )
            ],
            id="arch-option-in-extra-compile-args",  # sm_89's binary and its PTX
        ),
        pytest.param(
            """\
            def kernels(Device, CUDAProperties):
                return Device(type="cuda", properties=CUDAProperties(min_capability=121, max_capability=121))
            """,
            [("build", "CUDAProperties(min_capability=121, max_capability=121)", ["sm121"])],
            id="capability-range-bounds",  # the kernels hub's per-device layer mapping
        ),
        pytest.param(
            """\
            def kernels(CUDAProperties):
                return CUDAProperties(min_capability=100)
            """,
            [
                (
                    "build",
                    "CUDAProperties(min_capability=100)",
                    ["sm100", "sm103", "sm110", "sm120", "sm121"],
                )
            ],
            id="capability-range-floor",
        ),
        pytest.param(
            """\
            def gen_module():
                return get_nvcc_flags_list(supported_major_versions=[9, 10])
            """,
            [("build", "supported_major_versions=[9, 10]", ["sm90", "sm100", "sm103"])],
            id="build-major-list",
        ),
        pytest.param(
            """\
            def gen_module(build):
                return build(arch_list=["90a", "100a"])
            """,
            [("build", "arch_list=['90a', '100a']", ["sm90", "sm100"])],
            id="build-arch-list-keyword",
        ),
        pytest.param(
            """\
            def gen_all(has_sm90, has_sm100f, out):
                if has_sm90:
                    out.append("fa3")
                if has_sm100f:
                    out.append("cutlass")
            """,
            [
                ("build", "has_sm100f", ["sm100", "sm103"]),
                ("build", "has_sm90", ["sm90"]),
            ],
            id="aot-build-flags",
        ),
        pytest.param(
            """\
            class Fp4Config:
                @classmethod
                def get_min_capability(cls) -> int:
                    return 100
            """,
            [("minimum", "100", ["sm100", "sm103", "sm110", "sm120", "sm121"])],
            id="declared-least-capability",  # vLLM's and SGLang's quantization configs
        ),
        pytest.param(
            """\
            import os


            class W4A8Config:
                def get_min_capability(self):
                    return 80 if os.environ.get("LEGACY") else 90
            """,
            [
                (
                    "minimum",
                    "80 if os.environ.get('LEGACY') else 90",
                    ["sm80", "sm86", "sm87", *SM89_AND_NEWER, *AMD],
                )
            ],
            id="declared-least-capability-either-branch",
        ),
        pytest.param(
            """\
            class Fp8Config:
                @classmethod
                def get_min_capability(cls):
                    return 89


            class ComfyFp8Config:
                @classmethod
                def get_min_capability(cls):
                    return Fp8Config.get_min_capability()
            """,
            # The delegating declaration is the first one's call-site hop.
            [("minimum", "89", [*SM89_AND_NEWER, *AMD])],
            id="declared-least-capability-delegated",
        ),
        pytest.param(
            """\
            def gen_all(has_sm120, has_sm121, out):
                if has_sm120 or has_sm121:
                    out.append("sm12x")
            """,
            [("build", "has_sm120 or has_sm121", ["sm120", "sm121"])],
            id="aot-build-flags-or",
        ),
        pytest.param(
            """\
            def gen_all(caps, out):
                has_sm100a_exact = caps.get("sm100a_exact", False)
                has_flash_kda_decode_sm103a_direct = caps.get("kda_103a", False)
                has_sm8_or_newer = caps.get("sm8", False)
                if has_sm100a_exact:
                    out.append("fmha")
                if has_flash_kda_decode_sm103a_direct:
                    out.append("kda")
                if has_sm8_or_newer:
                    out.append("any")
            """,
            # The arch among the flag's words, one word after it at most (FlashInfer
            # 0.7.4's aot.py); `sm8` is no arch.
            [
                ("build", "has_flash_kda_decode_sm103a_direct", ["sm103"]),
                ("build", "has_sm100a_exact", ["sm100"]),
            ],
            id="aot-build-flags-with-more-words",
        ),
        pytest.param(
            """\
            @pytest.mark.skipif(get_compute_capability()[0] < 10, reason="needs Blackwell")
            def test_kernel():
                pass
            """,
            [
                (
                    "argument",
                    "get_compute_capability()[0] < 10",
                    [*OLDER_THAN_SM100, "gfx90a", "gfx942", "gfx950"],
                )
            ],
            id="pytest-skipif-argument",
        ),
        pytest.param(
            """\
            class TestKernel(unittest.TestCase):
                @unittest.skipUnless(get_compute_capability() == (9, 0), "Hopper only")
                def test_it(self):
                    pass
            """,
            [("argument", "get_compute_capability() == (9, 0)", ["sm90", "gfx90a"])],
            id="unittest-skipunless-argument",
        ),
        pytest.param(
            """\
            def pick(choose):
                return choose("fast", enabled=get_compute_capability()[0] >= 12)
            """,
            [("argument", "get_compute_capability()[0] >= 12", ["sm120", "sm121"])],
            id="condition-as-keyword-argument",
        ),
        pytest.param(
            """\
            class LazyVal:
                def __init__(self, f):
                    self.f = f


            SM80_OR_LATER = LazyVal(lambda: get_compute_capability() >= (8, 0))
            """,
            [
                (
                    "argument",
                    "get_compute_capability() >= (8, 0)",
                    ["sm80", "sm86", "sm87", *SM89_AND_NEWER, *AMD],
                )
            ],
            id="condition-deferred-into-a-lambda",  # torch's SM80OrLater test flags
        ),
    ],
)
def test_gates_without_an_if_are_rows(
    make_tree: MakeTree, source: str, expected: list[tuple[str, str, list[str]]]
) -> None:
    assert rows(audit(make_tree, source)) == expected


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """\
            def gen_module():
                return get_nvcc_flags_list(supported_major_versions=None)
            """,
            id="build-list-none-every-arch",
        ),
        pytest.param(
            """\
            def gen_module(majors):
                return get_nvcc_flags_list(supported_major_versions=majors)
            """,
            id="build-list-unknown-parameter",
        ),
        pytest.param(
            """\
            @supported_compute_capability([70, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121])
            def _requirement(a):
                return True
            """,
            id="decorator-every-nvidia-generation",
        ),
        pytest.param(
            """\
            @pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
            def test_kernel():
                pass
            """,
            id="skipif-without-an-arch-term",
        ),
        pytest.param(
            """\
            def f(log, batch):
                log("big", batch > 128)
            """,
            id="argument-condition-without-an-arch-term",
        ),
        pytest.param(
            """\
            import subprocess


            def build(src, out, extra):
                subprocess.check_call(["nvcc", *extra, "-arch=sm_90a", src, "-o", out])
            """,
            id="an-nvcc-command-spreading-what-is-not-read",  # `extra` may hold any arch
        ),
        pytest.param(
            """\
            import subprocess


            def run(src):
                subprocess.check_call(["gcc", "-gencode=arch=compute_90a,code=sm_90a", src])
            """,
            id="another-program",
        ),
        pytest.param(
            """\
            def gen_all(has_cuda, out):
                if has_cuda:
                    out.append("x")
            """,
            id="flag-not-named-for-an-arch",
        ),
        pytest.param(
            """\
            def gen_all(has_sm90, batch, out):
                if has_sm90 and batch > 1:
                    out.append("x")
            """,
            id="build-flag-mixed-with-other-terms",
        ),
        pytest.param(
            """\
            class CpuConfig:
                @classmethod
                def get_min_capability(cls):
                    return -1
            """,
            id="least-capability-every-generation",
        ),
        pytest.param(
            """\
            def get_min_capability():
                return 90
            """,
            id="least-capability-outside-a-class",
        ),
        pytest.param(
            """\
            class Config:
                def get_min_capability(self):
                    return self.floor
            """,
            id="least-capability-not-a-constant",
        ),
        pytest.param(
            """\
            class Config:
                def get_min_capability(self):
                    return True
            """,
            id="least-capability-a-bool",
        ),
        pytest.param(
            """\
            def pick(configs):
                return sorted(configs, key=lambda c: c.major >= 9)
            """,
            id="lambda-on-its-own-parameter",
        ),
        pytest.param(
            """\
            def gen(build, page):
                return build("k", extra_cuda_cflags=[f"{page}", "-arch=sm_90a"])
            """,
            id="flags-with-an-entry-not-read",  # it may be another arch option
        ),
        pytest.param(
            """\
            def gen(build, arch):
                return build("k", extra_cuda_cflags=[f"-arch=sm_{arch}", "-arch=sm_90a"])
            """,
            id="flags-with-an-arch-option-not-read",
        ),
        pytest.param(
            """\
            def gen(build):
                return build("k", extra_cuda_cflags=["-arch=native", "-O3"])
            """,
            id="flags-for-the-machine-at-hand",
        ),
        pytest.param(
            """\
            def gen(build):
                return build("k", extra_cuda_cflags=["-O3", "-lineinfo"])
            """,
            id="flags-without-an-arch-option",
        ),
        pytest.param(
            """\
            def flags(out, names):
                out.append("-O3")
                out.append("arch=compute_native")
                names.append("sm_90")
            """,
            id="appended-words-that-are-no-arch-option",
        ),
        pytest.param(
            """\
            def build(run, extra):
                nvcc_flags = ["-O3", extra, "-gencode=arch=compute_90a,code=sm_90a"]
                run(nvcc_flags)
            """,
            id="a-function-s-flag-list-with-an-entry-not-read",  # `extra` may be an arch
        ),
        pytest.param(
            """\
            def gen(build):
                return build("k", extra_cflags=["-gencode=arch=compute_90a,code=sm_90a"])
            """,
            id="host-compiler-flags",  # not nvcc's
        ),
        pytest.param(
            """\
            FLAGS = ["-O3", f"-arch=sm_{ARCH}"]
            NATIVE = ["-arch=native"]
            PLAIN = ["-O3", "-lineinfo"]


            def gen(arch):
                flags = [f"-arch=sm_{arch}", "-gencode=arch=compute_90a,code=sm_90a"]
                return flags
            """,
            id="flag-lists-not-read-whole-or-for-any-part",
        ),
        pytest.param(
            """\
            def kernels(ROCMProperties):
                return ROCMProperties(min_capability=115, max_capability=115)
            """,
            id="capability-range-of-another-platform",  # gfx1151's 11.5, not CUDA's
        ),
        pytest.param(
            """\
            def kernels(CUDAProperties, floor):
                return CUDAProperties(min_capability=floor)
            """,
            id="capability-range-bound-not-known",
        ),
    ],
)
def test_noop_not_a_row(make_tree: MakeTree, source: str) -> None:
    assert rows(audit(make_tree, source)) == []


def test_device_derived_flag_stays_an_ordinary_gate(make_tree: MakeTree) -> None:
    # has_sm90 read off the device: one `if` row (not a build declaration).
    source = """\
    has_sm90 = get_compute_capability()[0] == 9
    if has_sm90:
        x = 1
    """
    kinds = {kind for kind, _, _ in rows(audit(make_tree, source))}
    assert "build" not in kinds


def test_skipif_disables_and_skipunless_enables(make_tree: MakeTree) -> None:
    source = """\
    @pytest.mark.skipif(get_compute_capability()[0] != 12, reason="sm12x only")
    def test_a():
        pass


    @unittest.skipUnless(get_compute_capability()[0] == 12, "sm12x only")
    def test_b():
        pass
    """
    report = audit(make_tree, source)
    sides = sorted(
        (g.found.polarity.value, report.registry.ordered(g.admits))
        for g in report.gates
        if g.path.name == "mod.py"
    )
    assert sides == [("disables", ["sm120", "sm121"]), ("enables", ["sm120", "sm121"])]


def test_aot_flags_are_marked_assumed(make_tree: MakeTree) -> None:
    source = """\
    def gen_all(has_sm100, out):
        if has_sm100:
            out.append("x")
    """
    (gate,) = [g for g in audit(make_tree, source).gates if g.path.name == "mod.py"]
    assert any("has_sm100" in a for a in gate.found.admission.assumed)


DECLARED = """\
@supported_compute_capability([100, 103])
def _requirement(a):
    return True


def gen_module():
    return get_nvcc_flags_list(supported_major_versions=[10, 11, 12])
"""


def test_declarations_have_their_own_column_and_section(make_tree: MakeTree) -> None:
    report = audit(make_tree, DECLARED)
    data = json.loads(render_audit_json(report))
    declared = {g["condition"]: g["declaration"] for g in data["gates"]}
    assert declared == {
        "supported_compute_capability([100, 103])": True,
        "supported_major_versions=[10, 11, 12]": True,
    }
    assert data["declarations"] == 2
    markdown = render_audit_markdown(report)
    section = markdown.split("### Kernel declarations", 1)[1]
    assert "not declared supported on sm120" in section
    assert "built for sm120" in section.replace("not declared supported on sm120", "")


LEAST = """\
class Fp4Config:
    @classmethod
    def get_min_capability(cls) -> int:
        return 100
"""


@pytest.mark.parametrize(
    ("generation", "note"),
    [
        ("sm120", "sm120 meets the declared least capability"),
        ("sm90", "sm90 is below the declared least capability"),
    ],
)
def test_a_declared_least_capability_says_where_the_generation_stands(
    make_tree: MakeTree, generation: str, note: str
) -> None:
    report = audit(make_tree, LEAST, generation)
    section = render_audit_markdown(report).split("### Kernel declarations", 1)[1]
    assert note in section
    assert json.loads(render_audit_json(report))["declarations"] == 1


def test_a_pipe_gets_one_line_per_declaration_and_no_heading(make_tree: MakeTree) -> None:
    """Where the output is not a terminal the audit is one line per gate and the summary,
    declarations included: a section heading would be a line that names no gate."""
    root = make_tree(
        {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/mod.py": IMPORTS + DECLARED}
    )
    result = CliRunner().invoke(cli, ["audit", str(root), "--generation", "sm120"])
    assert result.exit_code == 0, result.output
    *gates, summary = result.stdout.splitlines()
    assert summary.startswith(f"{len(gates)} gates for sm120: ")
    assert all("mod.py:" in line.split("  ", 1)[0] for line in gates), gates
