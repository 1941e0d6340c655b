"""A benchmark's turn on the GPU alone (grader/execution/gpu_turn.py, common/cml/gpu_turn.hpp): it sets up first, asks
before its first launch, launches nothing until the grader answers, and gives the GPU back after its last
launch. On the CPU emulator's build of Lab 2's benchmark, in the sandbox, as the grader runs it."""

from __future__ import annotations

import re
import socket
import threading
import time

import pytest

from grader.execution import gpu_turn, proc
from grader.steps import build, suite

pytestmark = pytest.mark.needs_solutions

HELD_S = 1.0  # how long the grader keeps the benchmark waiting here


def lab2_bench(emulator, config):
    built = build.build_variant(emulator, "02_dot_product", "solution", config.timeouts["build"], emulated=True)
    assert built.ok, build.compiler_errors(built)
    return emulator.binary("02_dot_product", "solution", "bench", emulated=True)


def test_a_benchmark_asks_for_the_gpu_before_its_first_launch_and_waits_for_it(emulator, config):
    binary = lab2_bench(emulator, config)
    said = list[str]()

    def take() -> None:  # the others' launches still running: the benchmark must wait
        said.append("asked")
        time.sleep(HELD_S)

    def given_back() -> None:
        said.append("given back")

    with suite.run_folder() as scratch, gpu_turn.served(scratch, gpu_turn.Hold(take, given_back)) as turn:
        program = suite.program_run(binary, scratch, turn=turn)
        outcome = suite.run_program(program, config.timeouts["bench"], args=("--size", "65536"), turn=turn)
        assert turn is not None and turn.given
    assert outcome.ok, outcome.tail(20)
    assert said == ["asked", "given back"]
    trace = outcome.stderr
    alone = re.search(r"the GPU to this run alone, after waiting ([0-9.]+) s", trace)
    assert alone, trace
    assert float(alone.group(1)) >= HELD_S * 0.9
    first_launch = re.search(r"\(baseline\): checked launch", trace)
    assert first_launch and alone.start() < first_launch.start(), "a launch ran before the turn was given"


def test_a_benchmark_the_grader_gave_no_turn_does_not_wait(emulator, config):
    binary = lab2_bench(emulator, config)
    with suite.run_folder() as scratch:
        outcome = suite.run_program(
            suite.program_run(binary, scratch), config.timeouts["bench"], args=("--size", "4096")
        )
    assert outcome.ok, outcome.tail(20)
    assert "the GPU to this run alone" not in outcome.stderr


def test_the_socket_takes_one_turn_only_and_the_turn_ends_when_the_run_does(tmp_path):
    taken, given_back = threading.Event(), threading.Event()
    with gpu_turn.served(tmp_path, gpu_turn.Hold(taken.set, given_back.set)) as turn:
        assert turn is not None
        first = socket_to(turn)  # the harness, which keeps its end open until its last launch
        assert first.recv(1) == b"g" and taken.is_set()
        try:
            second = socket_to(turn)
            assert second.recv(1) == b""  # refused, or closed unanswered
        except OSError:
            pass
        assert not given_back.is_set()
    assert given_back.is_set()  # the run is over: whatever it left open, the GPU is the others' again
    first.close()


def socket_to(turn: gpu_turn.GpuTurn) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(5)
    connection.connect(str(turn.path))
    return connection


def test_the_time_spent_waiting_for_the_gpu_is_not_counted_against_the_time_limit():
    outcome = proc.run(["sleep", "1.5"], timeout_s=1.0, paused=lambda: 1.0)
    assert outcome.ok
    outcome = proc.run(["sleep", "5"], timeout_s=0.5)
    assert outcome.timed_out
