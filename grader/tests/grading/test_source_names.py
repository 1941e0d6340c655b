"""What a kernel.cu's text names, read before anything is built ("checking the source": a kernel.cu that defines
none of its lab's functions; a lone kernel.cu given to its lab by what it includes and defines). The text is the
student's, up to MAX_KERNEL_BYTES of it, read in the grader's own process: each form of text that made a pattern try
again over the same characters is read here at that size, in well under the 10 s these tests allow."""

from __future__ import annotations

import time

import pytest

from grader.core.config import REPO_ROOT
from grader.grading.source_names import names_in, without_comments
from grader.grading.submission import MAX_KERNEL_BYTES, defines_none_of, interface_functions, lab_by_content

LABS = sorted(p.name for p in (REPO_ROOT / "labs").iterdir() if p.is_dir())
FUNCTIONS = interface_functions("01_vector_add")
SIZE = MAX_KERNEL_BYTES


def filled(pattern: bytes, prefix: bytes = b"", suffix: bytes = b"") -> bytes:
    """`pattern` repeated to fill a kernel.cu of the largest size read, between `prefix` and `suffix`."""
    room = SIZE - len(prefix) - len(suffix)
    return prefix + pattern * (room // len(pattern)) + suffix


ADVERSARIAL = {
    "a string literal full of comment openers": filled(b"/* ", b'const char* s = "', b'";'),
    "an unclosed comment full of openers": filled(b"/* "),
    "character literals holding openers": filled(b"'/*' "),
    "one identifier": filled(b"a"),
    "a function's name over and over, never called": filled(b"vector_add "),
    "a function's name, then spaces": filled(b" ", b"vector_add"),
    "an include whose path never ends": filled(b"a/", b'#include "'),
    "includes with long folders": filled(b'#include "' + b"f/" * 120 + b'vector_add.hpp"\n'),
    "a hash and tabs": filled(b"\t", b"#"),
    "an unclosed string of backslashes": filled(b"\\", b'"'),
    "quotes": filled(b"'"),
    "empty strings": filled(b'""'),
    "comments of nothing": filled(b"/**/"),
}


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_a_kernel_of_the_largest_size_read_is_read_in_linear_time(name):
    source = ADVERSARIAL[name]
    assert len(source) <= SIZE
    started = time.perf_counter()
    defines_none_of(source, FUNCTIONS)
    lab_by_content(source, LABS)
    assert time.perf_counter() - started < 10


def test_a_comment_opener_inside_a_string_starts_no_comment():
    source = b'const char* s = "/*";\nvoid vector_add(const float* a, const float* b, float* c, int n) {} // */\n'
    assert without_comments(source.decode()).count("vector_add(") == 1
    assert not defines_none_of(source, FUNCTIONS)


def test_comments_are_left_out_and_a_name_in_them_is_no_definition():
    source = b'#include "vector_add.hpp"\n// vector_add(a, b) comes later\n/* vector_add( */\nint x = 1; /* open'
    assert defines_none_of(source, FUNCTIONS)
    assert without_comments(source.decode()) == '#include "vector_add.hpp"\n \n \nint x = 1;  '


def test_a_name_is_mentioned_only_where_a_parenthesis_follows_it_and_headers_by_their_file_name():
    names = names_in("#include <lab/x/vector_add.hpp>\nvoid vector_add_float4 (int);\nint vector_add;\n")
    assert names.mentions("vector_add.hpp") and names.mentions("vector_add_float4")
    assert not names.mentions("vector_add")
    far = names_in('#include "' + "f/" * 101 + 'vector_add.hpp"\n')  # 202 characters of folders: too far
    assert not far.mentions("vector_add.hpp")
