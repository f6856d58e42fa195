"""Screenshots of every page at 1440 px (desktop) and 390 px (phone) for docs/screenshots/.

    /work/main/.venv/bin/python -m tests.browser.screenshots

The page scrolls inside Streamlit's main area, so each shot uses a viewport as tall as that area's
content (a full-page screenshot would stop at the window's height).
"""
from __future__ import annotations

from pathlib import Path

from tests.browser.harness import CHROMIUM_ARGS, PAGES, ROOT, streamlit_server, wait_for_app

OUT = ROOT / "docs" / "screenshots"
WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}


def take(out: Path = OUT) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        for label, (width, height) in WIDTHS.items():
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.goto(url)
            wait_for_app(page)
            for name, path in PAGES.items():
                page.set_viewport_size({"width": width, "height": height})
                page.goto(f"{url}/{path}")
                wait_for_app(page)
                assert page.locator("[data-testid='stException']").count() == 0, name
                full = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
                page.set_viewport_size({"width": width, "height": min(int(full) + 40, 12_000)})
                page.wait_for_timeout(600)
                target = out / f"{name}-{width}.png"
                page.screenshot(path=str(target))
                written.append(target)
            context.close()
        browser.close()
    return written


if __name__ == "__main__":
    for path in take():
        print(path.relative_to(ROOT))
