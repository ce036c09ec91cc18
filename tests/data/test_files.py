"""The one way to write files (village_rules.data.files): atomic on a full disk, never through
a planted symlink, never over an input, folders swapped in whole."""

from __future__ import annotations

import fcntl
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import run_with_file_limit

from village_rules.data.files import check_writable, refuse_inputs, staged_folder, write_text
from village_rules.errors import OutputError

OLD = "the old, complete file\n" * 500  # 11.5 kB


def capped_write(writer: str, target: Path, limit: int = 8192) -> tuple[int, str]:
    """Run `writer(target, 20 kB)` (a dotted name) with files capped at `limit` bytes."""
    code = (
        "import importlib, sys; from pathlib import Path\n"
        "module, name = sys.argv[1].rsplit('.', 1)\n"
        "getattr(importlib.import_module(module), name)(Path(sys.argv[2]), 'new text\\n' * 2500)\n"
    )
    done = run_with_file_limit([sys.executable, "-c", code, writer, str(target)], limit)
    return done.returncode, done.stderr


def test_a_write_on_a_full_disk_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "log.json"
    target.write_text(OLD, encoding="utf-8")
    code, err = capped_write("village_rules.data.files.write_text", target)
    assert code != 0 and "OutputError" in err and str(target) in err and "unchanged" in err
    assert target.read_text(encoding="utf-8") == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["log.json"]  # no temporary file left


def test_the_full_disk_check_catches_a_write_in_place(tmp_path: Path) -> None:
    target = tmp_path / "log.json"
    target.write_text(OLD, encoding="utf-8")
    code, _ = capped_write("support.plain_write", target)
    assert code != 0 and target.stat().st_size == 8192  # the bug: 8 kB of a broken file


def test_a_planted_symlink_at_the_old_temporary_name_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "unrelated.txt"
    victim.write_text("precious", encoding="utf-8")
    target = tmp_path / "report.json"
    # the name the old fuzz --json wrote through: .NAME.PID.partial
    (tmp_path / f".{target.name}.{os.getpid()}.partial").symlink_to(victim)
    write_text(target, "the report\n")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert target.read_text(encoding="utf-8") == "the report\n"


def test_a_symlink_planted_at_the_next_temporary_name_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even a guessed name does not help: the file is created exclusively (O_EXCL), so a
    link already there is passed over, not written through."""
    victim = tmp_path / "unrelated.txt"
    victim.write_text("precious", encoding="utf-8")
    target = tmp_path / "report.json"
    (tmp_path / f".{target.name}.guessed.partial").symlink_to(victim)

    def names() -> Iterator[str]:
        yield "guessed"
        yield "fresh"

    monkeypatch.setattr(tempfile, "_get_candidate_names", names)
    write_text(target, "the report\n")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert target.read_text(encoding="utf-8") == "the report\n"
    assert (tmp_path / f".{target.name}.guessed.partial").is_symlink()


def test_a_symlink_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "unrelated.txt"
    victim.write_text("precious", encoding="utf-8")
    target = tmp_path / "out.svg"
    target.symlink_to(victim)
    write_text(target, "<svg/>\n")
    assert victim.read_text(encoding="utf-8") == "precious" and not target.is_symlink()


def test_the_file_mode_is_kept_or_follows_the_umask(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.json"
    write_text(fresh, "x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's private 0600
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    kept.chmod(0o640)
    write_text(kept, "new")
    assert kept.stat().st_mode & 0o777 == 0o640


def test_an_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    log.write_text(OLD, encoding="utf-8")
    with pytest.raises(OutputError, match="is also an input"):
        write_text(tmp_path / "." / "game.json", "<svg/>", inputs=[log])
    (tmp_path / "alias.json").symlink_to(log)
    with pytest.raises(OutputError, match="is also an input"):
        write_text(tmp_path / "alias.json", "<svg/>", inputs=[log])
    with pytest.raises(OutputError, match="holds an input"):
        refuse_inputs(tmp_path, [log], inside=True)
    assert log.read_text(encoding="utf-8") == OLD


def test_unwritable_outputs_are_refused_before_any_work(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(OutputError, match="is not a folder"):
        check_writable(a_file / "report.json")
    with pytest.raises(OutputError, match="is a folder"):
        check_writable(tmp_path)
    with pytest.raises(OutputError, match="not a folder"):
        check_writable(a_file, folder=True)
    check_writable(tmp_path / "new" / "deeper" / "report.json")  # may be created
    assert not (tmp_path / "new").exists()  # and nothing was


def test_a_folder_is_swapped_in_whole_or_not_at_all(tmp_path: Path) -> None:
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_text("PASS", encoding="utf-8")
    (report / "old-only.svg").write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), staged_folder(report) as staging:
        write_text(staging / "index.html", "FAIL")
        write_text(staging / "half.svg", "new")
        raise RuntimeError("the run stopped half-way")
    assert sorted(p.name for p in report.iterdir()) == ["index.html", "old-only.svg"]
    assert (report / "index.html").read_text(encoding="utf-8") == "PASS"
    with staged_folder(report) as staging:
        write_text(staging / "index.html", "FAIL")
    assert sorted(p.name for p in report.iterdir()) == ["index.html"]  # nothing of the old one
    assert (report / "index.html").read_text(encoding="utf-8") == "FAIL"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no staging folder left


def test_a_kept_folder_is_updated_whole(tmp_path: Path) -> None:
    witnesses = tmp_path / "witnesses"
    witnesses.mkdir()
    (witnesses / "a.json").write_text("a", encoding="utf-8")
    with staged_folder(witnesses, keep=True) as staging:
        assert (staging / "a.json").read_text(encoding="utf-8") == "a"
        write_text(staging / "b.json", "b")
    assert sorted(p.name for p in witnesses.iterdir()) == ["a.json", "b.json"]


def test_a_folder_output_on_a_full_disk_keeps_the_old_folder(tmp_path: Path) -> None:
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_text("PASS", encoding="utf-8")
    code = (
        "import sys; from pathlib import Path\n"
        "from village_rules.data.files import staged_folder, write_text\n"
        "with staged_folder(Path(sys.argv[1])) as staging:\n"
        "    write_text(staging / 'index.html', 'FAIL')\n"
        "    write_text(staging / 'big.svg', 'x' * 20_000)\n"
    )
    done = run_with_file_limit([sys.executable, "-c", code, str(report)], 8192)
    assert done.returncode != 0 and "OutputError" in done.stderr
    assert sorted(p.name for p in report.iterdir()) == ["index.html"]
    assert (report / "index.html").read_text(encoding="utf-8") == "PASS"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


# --- issue 42: long names, symlink loops, two writers of one folder --------------------------

LONG_NAME = "村" * 83  # 249 bytes of UTF-8: with ".json" a name of 254 bytes, which Linux accepts


def test_a_name_of_250_non_ascii_bytes_can_be_written(tmp_path: Path) -> None:
    # the temporary name kept 100 *characters* of it: 300 bytes, refused with ENAMETOOLONG
    target = tmp_path / (LONG_NAME + ".json")
    write_text(target, "text\n")
    assert target.read_text(encoding="utf-8") == "text\n"
    folder = tmp_path / (LONG_NAME + "xyz")
    for _ in range(2):  # created, then swapped in over the old one
        with staged_folder(folder) as staging:
            (staging / "index.html").write_text("page", encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, folder.name])


def test_a_symlink_loop_as_input_or_output_is_an_os_error_not_a_runtime_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    out = tmp_path / "out"
    refuse_inputs(out, [loop], inside=True)  # Path.resolve raised RuntimeError("Symlink loop")
    refuse_inputs(loop, [tmp_path / "in.json"], inside=True)
    with pytest.raises(OutputError, match="symbolic link"):
        check_writable(loop, folder=True)


def test_two_writers_of_one_folder_both_succeed_and_leave_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second writer swaps its folder in while the first is between its two renames (the
    old folder moved aside, the new one not yet in place): before the lock, the first
    writer's rename failed and its `.old` folder was left behind."""
    report = tmp_path / "report"
    report.mkdir()
    real_rename, real_flock = os.rename, fcntl.flock
    second_waits_or_ended = threading.Event()
    errors: list[BaseException] = []

    def second_writer() -> None:
        try:
            with staged_folder(report) as staging:
                (staging / "index.html").write_text("second", encoding="utf-8")
        except BaseException as exc:  # pragma: no cover - the failure this test is for
            errors.append(exc)
        finally:
            second_waits_or_ended.set()

    def flock(fd: int, op: int) -> None:
        if threading.current_thread() is not threading.main_thread():
            second_waits_or_ended.set()  # it is about to wait for the first writer's lock
        real_flock(fd, op)

    started: list[threading.Thread] = []

    def rename(src: str | Path, dst: str | Path) -> None:
        real_rename(src, dst)
        if threading.current_thread() is threading.main_thread() and Path(src) == report and not started:
            started.append(threading.Thread(target=second_writer))
            started[0].start()
            second_waits_or_ended.wait()

    monkeypatch.setattr(fcntl, "flock", flock)
    monkeypatch.setattr(os, "rename", rename)
    with staged_folder(report) as staging:
        (staging / "index.html").write_text("first", encoding="utf-8")
    started[0].join()
    assert errors == []
    assert (report / "index.html").read_text(encoding="utf-8") == "second"  # the last one wins
    assert [p.name for p in tmp_path.iterdir()] == ["report"]  # no hidden .old or .partial
