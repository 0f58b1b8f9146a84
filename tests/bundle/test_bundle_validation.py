"""The validator alone: a well-formed bundle is read, every hostile variant is refused."""
from __future__ import annotations

import pytest

from shell_agent_lab.bundle import InvalidBundleError, Limits
from shell_agent_lab.bundle._archive import open_archive
from shell_agent_lab.bundle._contents import read_contents

import bundle_corpus as corpus

LIMITS = Limits(max_entries=30, max_entry_bytes=8 << 20, max_total_bytes=16 << 20,
                max_json_bytes=1 << 20, ratio_floor_bytes=1 << 20, max_ratio=200)

# checked only once the analysis database is opened during import
_IMPORT_ONLY = {"fake_database", "lying_sizes"}


def test_baseline_bundle_is_read(tmp_path):
    path = corpus.write_zip(tmp_path / "ok.shellagent", corpus.baseline_entries())
    with open_archive(path) as zf:
        contents = read_contents(zf, LIMITS)
    assert contents.manifest.title == "Sales review"
    assert contents.manifest.private is False
    assert [r["seq"] for r in contents.records] == [1, 2]
    assert {o["id"] for o in contents.objects} == {corpus.OBJ_A, corpus.OBJ_B}
    assert contents.scanned.object_ids == {corpus.OBJ_A, corpus.OBJ_B}


@pytest.mark.parametrize("case", sorted(set(corpus.HOSTILE) - _IMPORT_ONLY))
def test_hostile_bundle_is_refused(case, tmp_path):
    path, expected = corpus.HOSTILE[case](tmp_path)
    with pytest.raises(InvalidBundleError) as err:
        with open_archive(path) as zf:
            read_contents(zf, LIMITS)
    message = str(err.value)
    assert expected.lower() in message.lower(), message
    assert "\n" not in message


def test_default_limits_accept_a_sparse_small_database(tmp_path):
    """A fresh DuckDB file is mostly zeros (ratio ~460x) but small: the ratio floor lets it in."""
    entries = corpus.baseline_entries() + [("analysis.duckdb", b"\0" * (512 * 1024))]
    path = corpus.write_zip(tmp_path / "sparse.shellagent", entries)
    with open_archive(path) as zf:
        assert read_contents(zf, Limits()).scanned.has_db


def test_extraction_counts_bytes_when_the_directory_lies(tmp_path):
    path, _ = corpus.lying_sizes(tmp_path)
    from shell_agent_lab.bundle._archive import extract, scan

    with open_archive(path) as zf:
        scanned = scan(zf, LIMITS)      # the declared 100 bytes pass the static checks
        info = scanned.infos["analysis.duckdb"]
        assert info.file_size == 100
        with pytest.raises(InvalidBundleError, match="analysis.duckdb"):
            extract(zf, info, tmp_path / "out.duckdb", LIMITS.max_entry_bytes)
    # the partial output is the caller's to remove; never more than the declared size was written
    assert (tmp_path / "out.duckdb").stat().st_size <= 100
