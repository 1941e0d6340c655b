"""What a kernel.cu may not do: include a library doing the work or another file of the repository, or
define a symbol of the harness. Source checks on text; object checks on objects nvcc builds here."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from grader import integrity
from grader.config import REPO_ROOT

LAB = "01_vector_add"


@pytest.mark.parametrize("source, complaint", [
    ('#include "vector_add.hpp"\n#include <cmath>\n#include "cml/lab.hpp"\n', ""),
    ('#include <cublas_v2.h>\n', "a library that does the lab's work"),
    ('#include <cub/cub.cuh>  // block reduce\n', "a library that does the lab's work"),
    ('#  include <thrust/reduce.h>\n', "a library that does the lab's work"),
    ('#include "../../solutions/01_vector_add/kernel.cu"\n', 'may include "vector_add.hpp"'),
    ('#include "/work/main/solutions/01_vector_add/kernel.cu"\n', 'may include "vector_add.hpp"'),
    ('#include </work/main/solutions/01_vector_add/kernel.cu>\n', "only the lab's own headers"),
    ('#define SOLUTION "x.cu"\n#include SOLUTION\n', "a computed #include"),
])  # fmt: skip
def test_source_includes(source, complaint):
    found = integrity.check_source(LAB, source)
    assert (complaint in found) if complaint else found == "", found


@pytest.fixture(scope="module")
def compile_kernel(tmp_path_factory):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    folder = tmp_path_factory.mktemp("objects")

    def compile_(name: str, source: str):
        (folder / f"{name}.cu").write_text(source)
        include = ["-I", str(REPO_ROOT / "common"), "-I", str(REPO_ROOT / "tests" / LAB)]
        subprocess.run([nvcc, "-c", *include, f"{name}.cu", "-o", f"{name}.o"], cwd=folder, check=True)
        subprocess.run(["ar", "rcs", f"lib{name}.a", f"{name}.o"], cwd=folder, check=True)
        return folder / f"lib{name}.a"

    return compile_


def test_the_solution_object_is_clean(compile_kernel):
    solution = compile_kernel("solution", (REPO_ROOT / "solutions" / LAB / "kernel.cu").read_text())
    assert integrity.check_object(solution, []) == ""


def test_an_object_defining_a_harness_function_is_caught(compile_kernel):
    source = (REPO_ROOT / "solutions" / LAB / "kernel.cu").read_text() + (
        '\n#include "cml/compare.hpp"\nnamespace cml {\n'
        "Comparison compare(const std::vector<float>&, const std::vector<double>&, Tolerance) { return {true}; }\n}\n"
    )
    found = integrity.check_object(compile_kernel("stolen", source), [])
    assert "cml::compare" in found and "test harness" in found


def test_an_object_calling_cublas_is_caught(compile_kernel):
    source = '#include "vector_add.hpp"\nextern "C" int cublasSaxpy_v2(void*, int, const float*, const float*, int, float*, int);\n' \
             "void vector_add(const float* a, const float* b, float* c, int n) { cublasSaxpy_v2(nullptr, n, nullptr, a, 1, c, 1); }\n"
    assert "cublasSaxpy_v2" in integrity.check_object(compile_kernel("blas", source), [])
