"""End to end in a real browser: `streamlit run app` as a subprocess, headless Chromium (Debian's chromium and
chromium-driver) through selenium, every page clicked in the sidebar, its title checked, a screenshot saved.

Screenshots: $KGP_SCREENSHOTS, default <tmp>/kgp-app-screenshots/. Without Chromium the test fails and says how
to install it (scripts/install_browser.sh): a skipped browser test would hide a broken app.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.i18n import STRINGS
from app.navigation import PAGES

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
INSTALL = "run scripts/install_browser.sh (apt-get install -y chromium chromium-driver; pip install selenium)"
SHOTS = Path(os.environ.get("KGP_SCREENSHOTS") or Path(tempfile.gettempdir()) / "kgp-app-screenshots")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1400,1000"]
PAGE_LOAD_S = 30  # the first visit of a page imports what it needs (torch for Labs, jieba for the bank)

pytestmark = pytest.mark.timeout(180)


def title(page: str, lang: int) -> str:
    return next(STRINGS[key][lang] for name, _, key in PAGES if name == page)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One app for the module (a start costs about 20 s on 2 cores) on a free port, with its data and runs in
    a temporary folder; yields its URL once healthy. Each test still gets a fresh browser profile."""
    tmp_path = tmp_path_factory.mktemp("app-server")
    port = free_port()
    env = {**os.environ, "KGP_DATA_DIR": str(tmp_path / "userdata"), "KGP_RUNS_DIR": str(tmp_path / "runs")}
    for var in ("KGP_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(var, None)
    log = open(tmp_path / "streamlit.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, tmp_path / "streamlit.log")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        log.close()


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout_s: float = 30) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"streamlit not healthy after {timeout_s} s:\n{log.read_text(errors='replace')}")


@pytest.fixture
def browser(tmp_path: Path):
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(f"headless Chromium is needed for the browser test; missing {', '.join(missing)}: {INSTALL}")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail(f"selenium is not installed: {INSTALL}")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*CHROME_FLAGS, f"--user-data-dir={tmp_path / 'chrome-profile'}"]:  # a new, empty profile
        options.add_argument(flag)
    # Both paths given: selenium does not look for (or download) a driver or a browser.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(PAGE_LOAD_S)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, condition, message: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # Streamlit redraws elements while a script runs: an element found a moment ago may be gone.
    WebDriverWait(driver, PAGE_LOAD_S, poll_frequency=0.25,
                  ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)


def wait_for_title(driver, text: str) -> None:
    from selenium.webdriver.common.by import By

    wait(driver, lambda d: any(h.text.strip() == text for h in d.find_elements(By.TAG_NAME, "h1")),
         f"no page title {text!r}")


def wait_idle(driver) -> None:
    """Until the script run has finished (the attribute Streamlit's own e2e tests wait on), then until the
    charts have drawn."""
    from selenium.webdriver.common.by import By

    idle = '[data-testid="stApp"][data-test-script-state="notRunning"]'
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, idle), "the script run does not finish")
    time.sleep(1.0)  # vega-lite and images draw after the run


def assert_no_exception(driver, page: str) -> None:
    from selenium.webdriver.common.by import By

    errors = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    assert not errors, f"{page}: {errors[0].text[:2000]}"


def click_nav(driver, url: str, page: str) -> None:
    from selenium.webdriver.common.by import By

    target = url + ("/" if page == "home" else f"/{page}")
    links = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSidebarNav"] a')
    link = next((a for a in links if (a.get_attribute("href") or "").rstrip("/") == target.rstrip("/")), None)
    assert link is not None, f"no sidebar link to {target}; links: {[a.get_attribute('href') for a in links]}"
    link.click()


def test_every_page_in_a_real_browser(server: str, browser) -> None:
    from selenium.webdriver.common.by import By

    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.get(server + "/?lang=zh")  # the server is shared: an earlier test may have saved English
    wait_for_title(browser, title("home", 0))
    for page, _icon, _key in PAGES:
        click_nav(browser, server, page)
        wait_for_title(browser, title(page, 0))
        wait_idle(browser)
        assert_no_exception(browser, page)
        browser.save_screenshot(str(SHOTS / f"{page}.png"))
        assert_not_blank(SHOTS / f"{page}.png")
    # The language switch changes the whole UI: this page's title and the navigation.
    english = browser.find_elements(By.XPATH, '//*[@data-testid="stSidebar"]//label[.//*[text()="English"]]')
    assert english, "the sidebar language switch"
    english[0].click()
    wait_for_title(browser, title(PAGES[-1][0], 1))
    nav = browser.find_element(By.CSS_SELECTOR, '[data-testid="stSidebarNav"]').text
    assert STRINGS["nav.bank"][1] in nav
    wait_idle(browser)
    browser.save_screenshot(str(SHOTS / f"{PAGES[-1][0]}-en.png"))
    print(f"screenshots: {SHOTS}")
    assert len(list(SHOTS.glob("*.png"))) >= len(PAGES) + 1


def chat_messages(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [m.text for m in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stChatMessage"]')]


def type_answer(driver, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.CSS_SELECTOR, '[data-testid="stChatInputTextArea"]')
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def test_the_mock_interview_is_a_chat_thread(server: str, browser) -> None:
    """One thread in the browser: the answer, two follow-ups in the chat, and the grade and the reference answer
    only once the thread closes."""
    from selenium.webdriver.common.by import By

    browser.get(server + "/interview?lang=zh")
    wait_for_title(browser, title("interview", 0))
    wait_idle(browser)
    start = [b for b in browser.find_elements(By.TAG_NAME, "button") if b.text.strip() == STRINGS["iv.start"][0]]
    assert start, "the start button of the setup form"
    start[0].click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="stChatInputTextArea"]'), "no chat input")
    wait_idle(browser)
    score = STRINGS["iv.score"][0].split("{")[0]
    answers = ["检查点要原子写入：先写临时文件，fsync 后再 rename，并保存校验和、优化器状态、RNG 与数据位置。",
               "我会先在小规模上复现，再对比每个 rank 的日志。", "用 profiler 实测，和基线对比。"]
    for k, answer in enumerate(answers):
        before = len(chat_messages(browser))
        type_answer(browser, answer)
        wait(browser, lambda d, n=before: len(chat_messages(d)) >= n + 2, f"no reply to answer {k + 1}")
        wait_idle(browser)
        assert_no_exception(browser, "interview")
        shown = "\n".join(chat_messages(browser))
        assert answer in shown
        if k < 2:  # the thread is still open: a follow-up, no grade
            assert STRINGS["iv.follow_up"][0].format(k=k + 1) in shown and score not in shown
    shown = "\n".join(chat_messages(browser))
    assert score in shown, "the thread is graded once it closes"
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, '[data-testid="stExpander"] summary')]
    assert any(STRINGS["iv.reference"][0] in x for x in labels)
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "interview-thread.png"))


def click_lang(driver, name: str) -> None:
    from selenium.webdriver.common.by import By

    labels = driver.find_elements(By.XPATH, f'//*[@data-testid="stSidebar"]//label[.//*[text()="{name}"]]')
    assert labels, f"the sidebar language switch ({name})"
    labels[0].click()


def page_text(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, '[data-testid="stMain"]').text


def assert_not_blank(png: Path) -> None:
    """A screenshot of a drawn page has many colours; a blank or half-loaded one has a handful."""
    from PIL import Image

    with Image.open(png) as img:
        colours = img.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50, f"{png} looks blank ({len(colours)} colours)"


def test_the_bank_survives_a_language_round_trip_and_pages(server: str, browser) -> None:
    """Issue 19: zh -> en -> zh used to leave every filter matching nothing ("0 条结果")."""
    from selenium.webdriver.common.by import By

    from question_bank.loader import load_bank

    n = len(load_bank().questions)
    browser.get(server + "/bank?lang=zh")
    wait_for_title(browser, title("bank", 0))
    wait_idle(browser)
    assert f"{n} 条结果" in page_text(browser)
    click_lang(browser, "English")
    wait_for_title(browser, title("bank", 1))
    wait_idle(browser)
    assert "lang=en" in browser.current_url  # a reload keeps the language
    click_lang(browser, "中文")
    wait_for_title(browser, title("bank", 0))
    wait_idle(browser)
    text = page_text(browser)
    assert f"{n} 条结果" in text and "0 条结果" not in text.replace(f"{n} 条结果", "")
    nxt = [b for b in browser.find_elements(By.TAG_NAME, "button") if b.text.strip() == STRINGS["bank.next"][0]]
    assert nxt, "the pager"
    nxt[0].click()
    wait(browser, lambda d: "第 2 / " in page_text(d), "page 2 is not shown")
    wait_idle(browser)
    assert_no_exception(browser, "bank")
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "bank-page2.png"))
    assert_not_blank(SHOTS / "bank-page2.png")
