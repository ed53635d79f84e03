"""The one ABI: the constants Python and the CUDA kernels share agree.

On the CPU (needs g++): each kernel file's standalone defaults (what
``nvcc -ptx`` in CI and any build without our ``-D`` options sees) equal
``wavefront.backends.cuda.abi``. On a GPU: a probe kernel appended to each
file and compiled through the same path as the real kernels reads back
exactly the Python values, for 32- and 64-bit vertex ids.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from wavefront.backends.cuda import abi
from wavefront.backends.cuda.compile import KERNEL_DIR


def test_every_kernel_file_has_an_abi_entry():
    assert sorted(KERNEL_DIR.glob("*.cu")) and sorted(p.name for p in KERNEL_DIR.glob("*.cu")) == sorted(abi.KERNEL_FILES)


def _standalone_values(filename: str, index64: bool, tmp_path, kernel_dir=KERNEL_DIR) -> dict[str, int]:
    """The values of the file's ABI macros with no -D but WF_INDEX64: preprocess
    the file with probe declarations, then compile and run those on the host."""
    names = sorted(abi.defines(filename, index64))
    probe = tmp_path / f"probe_{filename}.cc"
    probe.write_text(f'#include "{filename}"\n' + "".join(
        f"WF_ABI_VALUE wf_abi_{i} = (long long)({name});\n" for i, name in enumerate(names)))
    pre = subprocess.run(["g++", "-E", "-P", "-x", "c++", f"-I{kernel_dir}", f"-DWF_INDEX64={int(index64)}",
                          str(probe)], capture_output=True, text=True, check=True).stdout
    lines = [line for line in pre.splitlines() if line.startswith("WF_ABI_VALUE ")]
    assert len(lines) == len(names)
    host = tmp_path / f"host_{filename}.cc"
    host.write_text("#include <cstdio>\n#define WF_ABI_VALUE static const long long\n" + "\n".join(lines)
                    + "\nint main() {\n" + "".join(f'    std::printf("%lld\\n", wf_abi_{i});\n' for i in range(len(names)))
                    + "}\n")
    exe = tmp_path / f"host_{filename}"
    subprocess.run(["g++", "-o", str(exe), str(host)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    return dict(zip(names, map(int, out)))


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to preprocess the kernel files")
@pytest.mark.parametrize("index64", [False, True])
@pytest.mark.parametrize("filename", abi.KERNEL_FILES)
def test_kernel_file_defaults_match_python(filename, index64, tmp_path):
    assert _standalone_values(filename, index64, tmp_path) == abi.defines(filename, index64)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to preprocess the kernel files")
def test_the_check_sees_a_changed_default(tmp_path):
    """The CPU check can fail: a copy of the kernels with one default changed disagrees."""
    kernels = tmp_path / "kernels"
    shutil.copytree(KERNEL_DIR, kernels)
    common = kernels / "common.cuh"
    common.write_text(common.read_text().replace("#define CNT_SLOTS 9", "#define CNT_SLOTS 10"))
    values = _standalone_values("bfs_convert.cu", False, tmp_path, kernels)
    assert values["CNT_SLOTS"] == 10 and values != abi.defines("bfs_convert.cu")


def test_abi_constants_cannot_be_overridden_as_tuning():
    from wavefront.backends.cuda import compile as cuda_compile

    with pytest.raises(ValueError, match="ABI constants"):
        cuda_compile.module("bfs_convert.cu", {"CONVERT_BLOCK": 128})


@pytest.mark.gpu
@pytest.mark.parametrize("index64", [False, True])
@pytest.mark.parametrize("filename", abi.KERNEL_FILES)
def test_device_sees_python_values(filename, index64):
    cupy = pytest.importorskip("cupy")
    from wavefront.backends.cuda.compile import module

    defines = {"WF_INDEX64": int(index64)}
    if filename.startswith("sssp_"):
        defines["SSSP_WEIGHT"] = 0
    probe = module(filename, defines, probe=True).get_function("wf_abi_probe")
    _, names = abi.probe_source(filename, index64)
    out = cupy.zeros(len(names), dtype=cupy.int64)
    probe((1,), (1,), (out,))
    assert dict(zip(names, out.get().tolist())) == abi.defines(filename, index64)
