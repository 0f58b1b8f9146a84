"""The Data tab shows a connection (redacted URL) and its tables, against a real PostgreSQL."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ._lab import PANEL, SCRIPTED_SETUP, expect_state, open_notebook, open_panel, run_and_expect, show_tab, \
    write_notebook

pytestmark = [pytest.mark.engines]


@pytest.fixture(scope="module")
def pg():
    pytest.importorskip("psycopg")
    from engines.servers import PostgresServer, postgres_bin
    if postgres_bin() is None:
        pytest.skip("PostgreSQL's server binaries are not installed")
    server = PostgresServer().start()
    try:
        with server.admin("postgres") as conn:
            conn.execute("CREATE DATABASE warehouse")
            conn.execute(f"CREATE ROLE analyst LOGIN PASSWORD '{server.analyst_password}'")
        with server.admin() as conn:
            conn.execute("CREATE TABLE sales (region text, units int)")
            conn.execute("INSERT INTO sales VALUES ('north', 3), ('south', 4)")
            conn.execute("GRANT SELECT ON sales TO analyst")
        yield server
    finally:
        server.cleanup()


def test_the_data_tab_shows_a_connection_and_its_tables(page, lab_server, pg):
    url = pg.url(password=pg.analyst_password)
    write_notebook(lab_server["root"], "warehouse.ipynb", [
        SCRIPTED_SETUP + f"\nprint(rt.agent.connect('pg', {url!r}).redacted)",
    ])
    open_notebook(page, lab_server, "warehouse.ipynb")
    run_and_expect(page, 0, "***")
    open_panel(page)
    expect_state(page, "ready")
    show_tab(page, "data")
    card = page.locator("#sal-data-list .sal-connection[data-connection='pg']")
    expect(card).to_have_attribute("data-kind", "postgresql")
    expect(card.locator(".sal-connection-url")).to_contain_text("postgresql://analyst:***@127.0.0.1")
    expect(card).to_contain_text("1 tables")
    expect(page.locator("#sal-data-list .sal-table[data-table='pg.sales']")).to_be_visible()
    expect(page.locator(PANEL)).not_to_contain_text(pg.analyst_password)
