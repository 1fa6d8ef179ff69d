"""The site serves the rules, the bot contract and the starter bots, rendered from docs/ with raw HTML escaped."""

import hashlib
import re

import pytest
from django.urls import reverse

from bots import kit
from league.arena.site import docs


@pytest.mark.parametrize("page", docs.PAGES, ids=lambda page: page.slug)
def test_every_page_renders_from_its_markdown_file(client, db, page):
    response = client.get(reverse("doc", args=[page.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    first_heading = (docs.DOCS_DIR / page.filename).read_text().splitlines()[0].removeprefix("# ")
    assert f">{first_heading}</h1>" in html.replace("&amp;", "&")


def test_the_rules_page_is_the_repositorys_rules(client, db):
    html = client.get(reverse("doc", args=["rules"])).content.decode()
    assert "Face to Face" in html and '<div class="table-wrap"><table>' in html


def test_the_bot_contract_links_to_the_turn_formats_and_the_starters(client, db):
    contract = client.get(reverse("doc", args=["bot-api"])).content.decode()
    assert 'href="/docs/engine-api/"' in contract and 'href="/docs/starters/face_to_face.py"' in contract
    formats = client.get(reverse("doc", args=["engine-api"])).content.decode()
    assert '<h2 id="observation-what-playobservation-receives">' in formats
    assert 'href="/docs/rules/"' in formats and 'href="/docs/rules-decisions/"' in formats


def test_raw_html_in_the_markdown_is_shown_as_text():
    html = docs.render('<script>alert("x")</script>\n\nA <b onclick="x()">bold</b> word &amp; [a](javascript:x)\n')
    assert "<script" not in html and "<b " not in html
    assert "&lt;script&gt;" in html and "&lt;b onclick" in html
    assert "javascript:" not in html and "<a>a</a>" in html


def test_links_to_other_pages_keep_their_anchor_and_unknown_ones_are_left_alone(db):
    html = docs.render("[f](engine-api.md#observation) [g](../games/x.json) [s](starters/nope.py)")
    assert 'href="/docs/engine-api/#observation"' in html
    assert 'href="../games/x.json"' in html and 'href="starters/nope.py"' in html


def test_starters_download_as_python_files(client, db):
    assert docs.starters() == ["extreme.py", "face_to_face.py", "the_game.py"]
    for name in docs.starters():
        response = client.get(reverse("starter", args=[name]))
        assert response.status_code == 200
        assert response["Content-Type"] == "text/x-python; charset=utf-8"
        assert response["Content-Disposition"] == f'attachment; filename="{name}"'
        assert response.content == (docs.STARTERS_DIR / name).read_bytes()
    for bad in ("nope.py", "..%2Fsettings.py", "Face.py", "x.txt"):
        assert client.get(f"/docs/starters/{bad}").status_code == 404, bad
    assert client.get(reverse("doc", args=["operators-secret"])).status_code == 404


def test_the_index_lists_pages_and_starters_and_every_page_links_to_it(client, db):
    index = client.get(reverse("docs")).content.decode()
    for page in docs.PAGES:
        assert f'href="/docs/{page.slug}/"' in index
    for name in docs.starters():
        assert f'href="/docs/starters/{name}"' in index
    home = client.get(reverse("home")).content.decode()
    assert '<a href="/docs/">Docs</a>' in home


def test_the_upload_form_links_to_the_bot_contract(client, alice):
    client.force_login(alice)
    form = client.get(reverse("new-bot")).content.decode()
    assert '<a href="/docs/bot-api/">the bot contract</a>' in form and 'href="/docs/engine-api/"' in form


def test_lists_written_for_github_render_as_lists():
    html = docs.render("Setup\n- one\n  more of one\n  - nested\n- two\n\nAfter.\n\n```\n- not a list\n```\n")
    nested = "<ul>\n<li>nested</li>\n</ul>"
    assert f"<p>Setup</p>\n<ul>\n<li>one\n    more of one{nested}\n</li>\n<li>two</li>\n</ul>" in html
    assert "<p>After.</p>" in html and "<code>- not a list\n</code>" in html


def test_the_kit_page_serves_the_wheel_of_the_servers_own_sources(client, db, tmp_path):
    page = client.get(reverse("kit")).content.decode()
    link = re.search(r'<a href="http://testserver(/docs/kit/([^"]+))" download>', page)
    assert link and link[2] == kit.read_kit().wheel_name, page
    response = client.get(link[1])
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == f'attachment; filename="{link[2]}"'
    served = b"".join(response.streaming_content)
    assert served == kit.build(tmp_path).read_bytes()
    assert f"<code>{hashlib.sha256(served).hexdigest()}</code>" in page and f"{len(served):,} bytes" in page
    # the three lines: install from the link, a starter against house:greedy, a downloaded log replayed
    assert f"pip install http://testserver{link[1]}" in page
    assert "python -m bots play my_bot.py house:greedy" in page and "python -m games replay game-123.json" in page
    for other in ("thegame_arena_kit-0.0.1-py3-none-any.whl", "..%2F..%2Fsettings.py", "x.whl"):
        assert client.get(f"/docs/kit/{other}").status_code == 404, other
    index = client.get(reverse("docs")).content.decode()
    assert 'href="/docs/kit/"' in index and 'href="/data/"' in index
