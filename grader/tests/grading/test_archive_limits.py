"""Archive bombs, read as the grader reads a submission, in its own process: every header, name, entry, byte and
second is counted before it is spent, so each attack below costs a few MiB and well under a second's work, and the
other files of the archive are still read where that makes sense.

The bombs are cheap to make: a gzip, bzip2 or xz file may hold several streams one after the other, and each
decompressor reads them as one, so a long name of 256 MiB is one compressed MiB of "a" written 256 times."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import struct
import tarfile
import time
import tracemalloc
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.grading import submission, tarball
from grader.grading.submission import SubmissionError, read_submission, zip_directory_bytes

LABS = ["01_vector_add", "06_warp_reduction"]
KERNEL = b"// the student's kernel\n"
MIB = 1 << 20
# What reading any of these may hold at once: a chunk being decompressed and its copy, and xz's dictionary (8 MiB).
FEW_MIB = 16 * MIB
COMPRESS = {"gz": lambda data: gzip.compress(data, 9), "bz2": bz2.compress, "xz": lzma.compress}


@dataclass
class Repeated:
    """`count` copies of `chunk`, compressed once and written `count` times."""

    chunk: bytes
    count: int


def header(name: str, size: int, kind: bytes = tarfile.REGTYPE) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(tarfile.GNU_FORMAT)


def padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % tarfile.BLOCKSIZE)


def member(name: str, data: bytes, kind: bytes = tarfile.REGTYPE) -> bytes:
    return header(name, len(data), kind) + padded(data)


def record(key: str, value: str) -> bytes:
    """One pax record, "LENGTH KEY=VALUE\\n", its length counting its own digits."""
    body = f" {key}={value}\n".encode()
    length = len(body) + 1
    while len(str(length)) + len(body) != length:
        length += 1
    return str(length).encode() + body


def pax(records: dict[str, str] | bytes) -> bytes:
    """A pax header of these records, or of these bytes as they are."""
    body = records if isinstance(records, bytes) else b"".join(record(k, v) for k, v in records.items())
    return member("././@PaxHeader", body, tarfile.XHDTYPE)


END = b"\0" * (2 * tarfile.BLOCKSIZE)


def archive(path: Path, parts: list, method: str = "gz") -> Path:
    """A tarball of `parts` (bytes, and Repeated runs of them), each compressed as its own stream."""
    with path.open("wb") as out:
        for part in parts:
            if isinstance(part, Repeated):
                out.write(COMPRESS[method](part.chunk) * part.count)
            else:
                out.write(COMPRESS[method](part))
    return path


def costs(call, traced: bool = True):
    """What `call` returned or raised, the most memory it held at once (0 where not `traced`: tracing makes code
    that makes many small objects ten times slower), and its time."""
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    try:
        result = call()
    except Exception as error:  # the refusal is what some cases expect: returned to be checked
        result = error
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    tracemalloc.stop()
    return result, peak, seconds


def long_name(size: int) -> list:
    """A GNU long-name header declaring `size` bytes of "a", and those bytes."""
    return [header("././@LongLink", size, tarfile.GNUTYPE_LONGNAME), Repeated(b"a" * MIB, size // MIB)]


def test_a_long_name_of_256_mib_in_a_262_kb_tar_gz_is_refused_with_little_memory(tmp_path):
    path = archive(tmp_path / "bomb.tar.gz", [*long_name(256 * MIB), member("01_vector_add/kernel.cu", KERNEL), END])
    assert path.stat().st_size < 300_000
    result, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert isinstance(result, SubmissionError) and "more than 256 MiB in all" in str(result)
    assert peak < FEW_MIB and seconds < 10, (peak, seconds)


def test_a_name_of_1_gib_from_a_tar_bz2_is_refused_before_any_of_it_is_decompressed(tmp_path):
    path = archive(tmp_path / "bomb.tar.bz2", [*long_name(1024 * MIB), END], "bz2")
    assert path.stat().st_size < 100_000
    result, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert isinstance(result, SubmissionError) and "more than 256 MiB in all" in str(result)
    assert peak < FEW_MIB and seconds < 0.5, (peak, seconds)  # a GiB of bzip2 takes seconds to decompress


@pytest.mark.parametrize("method", ["gz", "bz2", "xz"])
def test_a_name_over_its_header_limit_is_skipped_unread_and_the_other_files_are_read(tmp_path, method):
    parts = [
        member("notes.txt", b"hello"),
        *long_name(100 * MIB),
        member("a/short/name/kernel.cu", b"never used"),
        member("sub/01_vector_add/kernel.cu", KERNEL),
        END,
    ]
    path = archive(tmp_path / f"skip.tar.{method}", parts, method)
    sub, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert not isinstance(sub, Exception), sub
    assert sub.kernels == {"01_vector_add": KERNEL}
    unread = [line for line in sub.ignored if line.startswith("a/short/name/kernel.cu")]
    assert unread and "a long name or pax header of 104,857,600 bytes" in unread[0], sub.ignored
    assert "notes.txt" in sub.ignored
    assert peak < FEW_MIB and seconds < 10, (peak, seconds)


def test_a_pax_path_of_256_mib_is_refused_with_little_memory(tmp_path):
    parts = [
        header("././@PaxHeader", 256 * MIB, tarfile.XHDTYPE),
        Repeated(b"a" * MIB, 256),
        member("01_vector_add/kernel.cu", KERNEL),
        END,
    ]
    path = archive(tmp_path / "pax.tar.xz", parts, "xz")
    result, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert isinstance(result, SubmissionError) and "more than 256 MiB in all" in str(result)
    assert peak < FEW_MIB and seconds < 10, (peak, seconds)


def test_a_long_name_under_the_limit_is_read_and_cut_where_it_is_reported(tmp_path):
    folders = "very/" * 2_000  # 10,000 characters of folders
    name = f"{folders}01_vector_add/kernel.cu"
    other = f"{folders}readme.md"
    path = archive(tmp_path / "long.tar.gz", [member(name, KERNEL), member(other, b"x"), END])
    sub = read_submission(path, LABS)
    assert sub.kernels == {"01_vector_add": KERNEL}  # the lab is told from the whole name
    for shown in (sub.used["01_vector_add"], sub.ignored[0]):
        assert len(shown) < submission.MAX_NAME_CHARS + 60 and "more characters]" in shown


def test_a_pax_header_of_many_records_is_read_in_one_pass_and_its_path_used(tmp_path):
    records = {f"comment.{i}": "x" for i in range(3_000)} | {"path": "deep/01_vector_add/kernel.cu"}
    path = archive(tmp_path / "records.tar.gz", [pax(records), member("kernel.cu", KERNEL), END])
    sub, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert sub.used == {"01_vector_add": "deep/01_vector_add/kernel.cu"}
    assert seconds < 1, seconds


def test_a_pax_header_of_64_kib_of_digits_is_refused_in_linear_time(tmp_path):
    """tarfile's own pax parser searches such a header with a regular expression that takes quadratic time."""
    digits = b"1" * tarball.MAX_EXTENDED_BYTES
    path = archive(tmp_path / "digits.tar.gz", [pax(digits), member("01_vector_add/kernel.cu", KERNEL), END])
    result, _, seconds = costs(lambda: read_submission(path, LABS))
    assert isinstance(result, SubmissionError) and "malformed record" in str(result)
    assert seconds < 1, seconds


def test_pax_headers_past_their_total_are_skipped_unread_in_bounded_time(tmp_path):
    body = b"".join(record(f"c{i:05}", "x") for i in range(4_000))
    per_member = [pax(body), member("data/file.bin", b"d")]
    count = tarball.MAX_EXTENDED_TOTAL // len(body) + 20
    parts = [b"".join(per_member * count), member("01_vector_add/kernel.cu", KERNEL), END]
    path = archive(tmp_path / "records.tar.gz", parts)
    sub, _, seconds = costs(lambda: read_submission(path, LABS), traced=False)
    assert not isinstance(sub, Exception), sub
    assert sub.kernels == {"01_vector_add": KERNEL}
    skipped = [line for line in sub.ignored if "more than 8 MiB in all" in line]
    assert 10 <= len(skipped) <= 20, len(skipped)
    assert seconds < 5, seconds


def test_pax_records_of_the_shortest_form_are_split_in_linear_time_up_to_the_total():
    shortest = b"4 =\n" * (tarball.MAX_EXTENDED_BYTES // 4)  # 16,384 records to a header
    started = time.perf_counter()
    for _ in range(tarball.MAX_EXTENDED_TOTAL // len(shortest)):
        assert tarball.pax_records(shortest) == {}
    assert time.perf_counter() - started < 10


def test_a_chain_of_long_names_is_counted_header_by_header_and_never_recursed(tmp_path):
    chain = member("././@LongLink", b"name\0", tarfile.GNUTYPE_LONGNAME) * (submission.MAX_ENTRIES + 1)
    path = archive(tmp_path / "chain.tar.gz", [chain, member("01_vector_add/kernel.cu", KERNEL), END])
    result, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert isinstance(result, SubmissionError) and "more than 10,000 files" in str(result)
    assert peak < FEW_MIB and seconds < 5, (peak, seconds)


def test_global_pax_headers_are_never_parsed_nor_kept(tmp_path):
    globals_ = member("././@PaxHeader", b"1" * tarball.MAX_EXTENDED_BYTES, tarfile.XGLTYPE) * 200  # 12.5 MiB
    path = archive(tmp_path / "global.tar.gz", [globals_, member("01_vector_add/kernel.cu", KERNEL), END])
    sub, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert not isinstance(sub, Exception), sub
    assert sub.kernels == {"01_vector_add": KERNEL}
    assert peak < FEW_MIB and seconds < 5, (peak, seconds)


def test_a_member_past_the_total_is_refused_before_its_data_is_decompressed(tmp_path):
    parts = [header("big.bin", 1024 * MIB), Repeated(b"\0" * MIB, 1024), member("01_vector_add/kernel.cu", KERNEL)]
    path = archive(tmp_path / "big.tar.bz2", [*parts, END], "bz2")
    result, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert isinstance(result, SubmissionError) and "more than 256 MiB in all" in str(result)
    assert peak < FEW_MIB and seconds < 0.5, (peak, seconds)


def test_data_under_the_total_is_decompressed_a_chunk_at_a_time_and_the_files_after_it_read(tmp_path):
    parts = [header("big.bin", 200 * MIB), Repeated(b"\0" * MIB, 200), member("01_vector_add/kernel.cu", KERNEL)]
    path = archive(tmp_path / "big.tar.xz", [*parts, END], "xz")
    sub, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert not isinstance(sub, Exception), sub
    assert sub.kernels == {"01_vector_add": KERNEL} and "big.bin" in sub.ignored
    assert peak < FEW_MIB and seconds < 10, (peak, seconds)


def test_a_submission_that_takes_too_long_to_read_is_refused(tmp_path, monkeypatch):
    parts = [header("big.bin", 200 * MIB), Repeated(b"\0" * MIB, 200), member("01_vector_add/kernel.cu", KERNEL)]
    path = archive(tmp_path / "slow.tar.bz2", [*parts, END], "bz2")
    monkeypatch.setattr(submission, "READ_SECONDS", 0.05)
    started = time.perf_counter()
    with pytest.raises(SubmissionError, match="not read within 0.05 s"):
        read_submission(path, LABS)
    assert time.perf_counter() - started < 0.5  # stopped a chunk after its time, not at the end of the data


def test_an_xz_tarball_that_asks_for_a_4_gib_dictionary_is_refused(tmp_path):
    """liblzma allocates the dictionary an xz file names (up to 4 GiB), and fills it as it decompresses."""
    data = lzma.compress(member("01_vector_add/kernel.cu", KERNEL) + END)
    size = (data[12] + 1) * 4  # the block header, after the 12 bytes of the stream's
    block = bytearray(data[12 : 12 + size])
    block[block.find(b"\x21\x01") + 2] = 40  # LZMA2's dictionary: 40 is 4 GiB
    struct.pack_into("<I", block, size - 4, zlib.crc32(block[: size - 4]))
    path = tmp_path / "dictionary.tar.xz"
    path.write_bytes(data[:12] + bytes(block) + data[12 + size :])
    with pytest.raises(SubmissionError, match="Memory usage limit"):
        read_submission(path, LABS)


def test_an_archive_inside_the_archive_is_a_file_like_any_other_never_opened(tmp_path):
    inner = archive(tmp_path / "inner.tar.gz", [header("zeros", 1024 * MIB), Repeated(b"\0" * MIB, 1024), END])
    outer = tmp_path / "outer.tar.gz"
    outer.write_bytes(
        gzip.compress(member("bomb.tar.gz", inner.read_bytes()) + member("01_vector_add/kernel.cu", KERNEL) + END)
    )
    sub, peak, seconds = costs(lambda: read_submission(outer, LABS))
    assert sub.kernels == {"01_vector_add": KERNEL} and "bomb.tar.gz" in sub.ignored
    assert peak < FEW_MIB and seconds < 0.5, (peak, seconds)
    twice = tmp_path / "twice.tar.gz.gz"
    twice.write_bytes(gzip.compress(outer.read_bytes()))
    with pytest.raises(SubmissionError, match="not a folder, a tarball or a zip"):
        read_submission(twice, LABS)


def test_an_old_gnu_sparse_member_refuses_the_tarball():
    block = header("sparse", 10, tarfile.GNUTYPE_SPARSE)
    with pytest.raises(tarball.TarballError, match="sparse"):
        list(tarball.Walk(io.BytesIO(block + END), submission.Budget(Path("t"))))


def test_a_tarball_cut_inside_a_members_data_cannot_be_read(tmp_path):
    path = tmp_path / "cut.tar"
    path.write_bytes(header("01_vector_add/kernel.cu", 10_000) + b"x" * 100)
    with pytest.raises(SubmissionError, match="ends inside a member's data"):
        read_submission(path, LABS)


# Zips: zipfile reads the whole list of files when it opens one (sized first: test_submissions.py), and inflates a
# member's bytes; names and comments are up to 64 kB each.


def raw_zip(path: Path, name: str, data: bytes, size: int, crc: int, method: int = zipfile.ZIP_DEFLATED) -> Path:
    """A zip of one member whose compressed `data` declares `size` bytes and `crc`, written by hand: zipfile writes
    only what it compressed itself."""
    encoded = name.encode()
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0, crc, len(data), size, len(encoded), 0)
    central = struct.pack(
        "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc, len(data), size, len(encoded), 0, 0, 0, 0, 0, 0
    )
    directory = central + encoded
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), len(local) + len(encoded) + len(data), 0)
    path.write_bytes(local + encoded + data + directory + end)
    return path


def test_a_zip_member_that_inflates_past_its_declared_size_is_inflated_no_further(tmp_path):
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = b"".join(deflate.compress(b"a" * MIB) for _ in range(64)) + deflate.flush()  # 64 MiB in 64 kB
    path = raw_zip(tmp_path / "bomb.zip", "01_vector_add/kernel.cu", data, MIB, zlib.crc32(b"a" * MIB))
    sub, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert not isinstance(sub, Exception), sub
    assert sub.kernels == {"01_vector_add": b"a" * MIB}
    assert peak < FEW_MIB and seconds < 1, (peak, seconds)


def test_a_zip_member_that_zipfile_would_inflate_whole_is_not_read(tmp_path):
    data = bz2.compress(b"a" * MIB)
    path = raw_zip(tmp_path / "bz.zip", "01_vector_add/kernel.cu", data, MIB, zlib.crc32(b"a" * MIB), zipfile.ZIP_BZIP2)
    sub = read_submission(path, LABS)
    assert sub.kernels == {}
    assert sub.ignored == ["01_vector_add/kernel.cu (compressed by method 12, not deflate: not used)"]


def test_an_encrypted_zip_member_is_named_not_read(tmp_path):
    path = tmp_path / "locked.zip"
    with zipfile.ZipFile(path, "w") as archive_:
        archive_.writestr("01_vector_add/kernel.cu", KERNEL)
    data = bytearray(path.read_bytes())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set bit 0 of each header's flags
        at = data.find(signature)
        struct.pack_into("<H", data, at + flags, struct.unpack_from("<H", data, at + flags)[0] | 1)
    path.write_bytes(bytes(data))
    sub = read_submission(path, LABS)
    assert sub.kernels == {} and sub.ignored == ["01_vector_add/kernel.cu (encrypted: not used)"]


def test_huge_names_and_comments_in_a_zip_are_read_within_bounds_and_cut_where_reported(tmp_path):
    path = tmp_path / "names.zip"
    with zipfile.ZipFile(path, "w") as archive_:
        archive_.comment = b"c" * 0xFFFF
        for i in range(8):
            info = zipfile.ZipInfo(f"{i}/" + "n" * 60_000)
            info.comment = b"c" * 0xFFFF
            archive_.writestr(info, b"x")
        archive_.writestr("01_vector_add/kernel.cu", KERNEL)
    sub, peak, seconds = costs(lambda: read_submission(path, LABS))
    assert sub.kernels == {"01_vector_add": KERNEL}
    assert len(sub.ignored) == 8 and all("59,746 more characters]" in line for line in sub.ignored)
    assert peak < FEW_MIB and seconds < 1, (peak, seconds)


def test_the_zip_directory_is_sized_where_zipfile_finds_it_whatever_the_zip64_locator_says(tmp_path):
    path = tmp_path / "lying.zip"
    with zipfile.ZipFile(path, "w") as archive_:
        archive_.writestr("01_vector_add/kernel.cu", KERNEL)
    data = path.read_bytes()
    end = data.rfind(submission.ZIP_END)
    claimed = 500 * MIB
    # A zip64 end record just before its locator, which points elsewhere: zipfile reads the one just before.
    record = struct.pack("<4sQ2H2L4Q", submission.ZIP64_END, 44, 45, 45, 0, 0, 1, 1, claimed, 0)
    locator = struct.pack("<4sLQL", submission.ZIP64_LOCATOR, 0, 0, 1)
    path.write_bytes(data[:end] + record + locator + data[end:])
    with path.open("rb") as file:
        zipfiles_own = zipfile._EndRecData(file)[zipfile._ECD_SIZE]  # type: ignore[attr-defined]  # what it reads
    assert zip_directory_bytes(path) == zipfiles_own == claimed
    with pytest.raises(SubmissionError, match="its list of files is over"):
        read_submission(path, LABS)


def test_no_more_than_max_kernels_read_kernel_cu_files_are_read(tmp_path):
    copies = submission.MAX_KERNELS_READ + 10
    many = b"".join(member(f"copy{i}/kernel.cu", b"int x;") for i in range(copies))
    path = archive(tmp_path / "many.tar.gz", [member("01_vector_add/kernel.cu", KERNEL), many, END])
    sub = read_submission(path, LABS)
    assert sub.kernels == {"01_vector_add": KERNEL} and sub.kernels_read == submission.MAX_KERNELS_READ
    unread = [
        line
        for line in sub.ignored
        if line.endswith(f"(more than {submission.MAX_KERNELS_READ} kernel.cu files: not read)")
    ]
    assert len(unread) == copies + 1 - submission.MAX_KERNELS_READ
