"""The documentation site builds with warnings as errors, and every page is in the navigation."""
from __future__ import annotations

import subprocess
import sys

import yaml

from docs_pages import DOCS, ROOT


def _nav_pages(nav) -> list[str]:
    pages: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_mkdocs_build_strict(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    for page in ("index.html", "quickstart/index.html", "security/index.html", "sessions/index.html"):
        assert (tmp_path / "site" / page).is_file(), page


def test_every_page_is_reachable_from_the_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    in_nav = set(_nav_pages(config["nav"]))
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert in_nav <= on_disk, f"nav names missing pages: {sorted(in_nav - on_disk)}"
    assert on_disk <= in_nav, f"pages not in mkdocs.yml nav: {sorted(on_disk - in_nav)}"
