"""Progress bars: on stderr's terminal only, never on stdout, forced through a ProgressBar."""
import io
import pathlib

import numpy as np
import pytest
from rich.console import Console

import wavefront as wf
from wavefront.io import ProgressBar, read_graph, write_graph

DATA = pathlib.Path(__file__).parent / "data"


def terminal():
    """A console that claims to be a terminal, writing into a buffer."""
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=120), buffer


def test_forced_terminal_shows_reading_and_building_but_not_on_stdout(capsys):
    console, buffer = terminal()
    g = read_graph(DATA / "tiny.gr", progress=ProgressBar(console=console, delay=0))
    assert g.m == 5
    shown = buffer.getvalue()
    assert "reading tiny.gr" in shown and "building the graph" in shown
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_forced_terminal_shows_writing(tmp_path, capsys):
    console, buffer = terminal()
    g = wf.from_edges([0, 1], [1, 2], weights=np.array([1.5, 2.0]))
    write_graph(g, tmp_path / "g.el", progress=ProgressBar(console=console, delay=0))
    assert "writing" in buffer.getvalue()
    assert capsys.readouterr().out == ""


def test_silent_without_a_terminal(tmp_path, capsys):
    read_graph(DATA / "tiny_weighted.edges.gz")  # pytest's stderr is no terminal
    write_graph(read_graph(DATA / "tiny.txt"), tmp_path / "out.mtx")
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_quick_work_shows_nothing_before_the_delay():
    console, buffer = terminal()
    read_graph(DATA / "tiny.txt", progress=ProgressBar(console=console, delay=30))
    assert buffer.getvalue() == ""


def test_progress_argument_is_checked():
    with pytest.raises(TypeError, match="ProgressBar"):
        read_graph(DATA / "tiny.txt", progress="yes")
