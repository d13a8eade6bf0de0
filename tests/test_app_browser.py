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
def app_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The app's folder for the module: userdata/ (its SQLite) and runs/ (lab runs)."""
    return tmp_path_factory.mktemp("app-server")


@pytest.fixture(scope="module")
def server(app_home: Path) -> Iterator[str]:
    """One app for the module (a start costs about 20 s on 2 cores) on a free port, with its data and runs in
    a temporary folder; yields its URL once healthy. Each test still gets a fresh browser profile."""
    port = free_port()
    env = {**os.environ, "KGP_DATA_DIR": str(app_home / "userdata"), "KGP_RUNS_DIR": str(app_home / "runs")}
    for var in ("KGP_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(var, None)
    log = open(app_home / "streamlit.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, app_home / "streamlit.log")
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
    options.add_experimental_option("prefs", {"download.default_directory": str(tmp_path / "downloads"),
                                              "download.prompt_for_download": False})
    # Both paths given: selenium does not look for (or download) a driver or a browser.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(PAGE_LOAD_S)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, condition, message: str, timeout_s: float = PAGE_LOAD_S) -> None:
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    # Streamlit redraws elements while a script runs: an element found a moment ago may be gone.
    try:
        WebDriverWait(driver, timeout_s, poll_frequency=0.25,
                      ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)
    except TimeoutException:
        if not message:
            raise
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / "failed.png"))
        pytest.fail(f"{message} (screenshot {SHOTS / 'failed.png'}); the page says:\n{page_text(driver)[:1500]}")


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

    browser.get(server + "/?lang=zh")  # the server is shared: an earlier test may have saved English
    wait_for_title(browser, title("home", 0))
    for page, _icon, _key in PAGES:
        click_nav(browser, server, page)
        wait_for_title(browser, title(page, 0))
        wait_idle(browser)
        assert_no_exception(browser, page)
        shot(browser, page)
    # The language switch changes the whole UI: this page's title and the navigation.
    english = browser.find_elements(By.XPATH, '//*[@data-testid="stSidebar"]//label[.//*[text()="English"]]')
    assert english, "the sidebar language switch"
    english[0].click()
    wait_for_title(browser, title(PAGES[-1][0], 1))
    nav = browser.find_element(By.CSS_SELECTOR, '[data-testid="stSidebarNav"]').text
    assert STRINGS["nav.bank"][1] in nav
    wait_idle(browser)
    shot(browser, f"{PAGES[-1][0]}-en")
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
    shot(browser, "interview-thread")


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


def shot(driver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    assert_not_blank(SHOTS / f"{name}.png")


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
    shot(browser, "bank-page2")


# ---- the flows a user goes through (issues 19 and 21) --------------------------------------------------------
RESUME = """# 张三

## 工作经历

### ACME | 训练平台 | 2021-2024
- 负责 64 卡 PyTorch DDP 训练的 checkpoint 保存与断点续训，恢复时间从 30 分钟降到 3 分钟
- 优化 NCCL 通信，训练吞吐提升

## 技能
PyTorch, NCCL, DeepSpeed ZeRO-3
"""
JD = "任职要求：熟悉 PyTorch 分布式与 NCCL；有断点续训和弹性训练经验。加分项：Megatron-LM 流水线并行。"


def zh(key: str, **fields: object) -> str:
    return STRINGS[key][0].format(**fields) if fields else STRINGS[key][0]


def prefix(key: str) -> str:
    """The fixed start of a string with fields, to find the message it makes."""
    return zh(key).split("{")[0]


def shown(driver, text: str, what: str, timeout_s: float = PAGE_LOAD_S) -> None:
    wait(driver, lambda d: text in page_text(d), f"{what}: {text!r} never shown", timeout_s)


def by_text(driver, css: str, text: str) -> list:
    from selenium.webdriver.common.by import By

    # an expander's summary starts with its icon's name (keyboard_arrow_right): its label is the last line
    return [e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.text.strip().split("\n")[-1] == text]


def click(driver, css: str, text: str) -> None:
    """The first visible, enabled element matching `css` whose text is `text`, once there is one."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By

    try:
        wait(driver, lambda d: [e for e in by_text(d, css, text) if e.is_displayed() and e.is_enabled()], "")
    except TimeoutException:
        seen = [(e.text.strip(), e.is_displayed(), e.is_enabled()) for e in driver.find_elements(By.CSS_SELECTOR, css)]
        pytest.fail(f"no visible, enabled {css} {text!r}; there are (text, shown, enabled): {seen}")
    next(e for e in by_text(driver, css, text) if e.is_displayed() and e.is_enabled()).click()


def field(driver, testid: str, label: str):
    """The input of the widget `testid` (stTextArea, stTextInput, stSelectbox...) labelled `label`."""
    from selenium.webdriver.common.by import By

    def find(d):
        for w in d.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]'):
            names = w.find_elements(By.CSS_SELECTOR, '[data-testid="stWidgetLabel"]')
            if w.is_displayed() and names and names[0].text.strip() == label:
                return w
        return None
    wait(driver, find, f"no {testid} labelled {label!r}")
    return find(driver)


def type_text(driver, label: str, text: str, area: bool = True, in_form: bool = False) -> None:
    """Type into a text area or a text input. Outside a form a text area's value is committed with Ctrl+Enter (as
    the app says); inside one, Ctrl+Enter would submit the form: the form's button sends the value."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = field(driver, "stTextArea" if area else "stTextInput", label).find_element(
        By.CSS_SELECTOR, "textarea" if area else "input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(text)
    if area and not in_form:
        box.send_keys(Keys.CONTROL, Keys.ENTER)
        wait_idle(driver)


def choose(driver, label: str, option: str) -> None:
    """Open the select box labelled `label` and pick the option whose text contains `option`."""
    from selenium.webdriver.common.by import By

    field(driver, "stSelectbox", label).find_element(By.CSS_SELECTOR, '[role="combobox"]').click()
    options = '[role="option"]'
    wait(driver, lambda d: [o for o in d.find_elements(By.CSS_SELECTOR, options) if option in o.text],
         f"no option {option!r} in {label!r}")
    next(o for o in driver.find_elements(By.CSS_SELECTOR, options) if option in o.text).click()


def open_expander(driver, title: str) -> None:
    """Click the expander's summary until it stays open (a rerun in flight can redraw it closed)."""
    from selenium.webdriver.common.by import By

    def is_open(d) -> bool:
        return any(e.get_attribute("open") is not None for e in d.find_elements(
            By.CSS_SELECTOR, '[data-testid="stExpander"] details') if by_text(e, "summary", title))
    for _ in range(3):
        wait_idle(driver)
        if is_open(driver):
            return
        click(driver, '[data-testid="stExpander"] summary', title)
    wait(driver, is_open, f"expander {title!r} opens")


def metric(driver, label: str) -> str:
    from selenium.webdriver.common.by import By

    for m in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stMetric"]'):
        if m.find_element(By.CSS_SELECTOR, '[data-testid="stMetricLabel"]').text.strip() == label:
            return m.find_element(By.CSS_SELECTOR, '[data-testid="stMetricValue"]').text.strip()
    return ""


def test_a_resume_upload_is_matched_diagnosed_then_tracked_on_the_board(server: str, browser, tmp_path: Path) -> None:
    """Upload -> master version -> JD coverage -> diagnosis; then a card sent with that version: edited, counted
    under the version in the analytics, deleted after the confirming tick."""
    import re

    from selenium.webdriver.common.by import By

    browser.get(server + "/resume?lang=zh")
    wait_for_title(browser, title("resume", 0))
    wait_idle(browser)
    upload = browser.find_elements(By.CSS_SELECTOR, '[data-testid="stFileUploaderDropzone"] button')[0]
    label = upload.find_element(By.CSS_SELECTOR, '[data-testid="stMarkdownContainer"]')
    drawn = browser.execute_script("return getComputedStyle(arguments[0], '::after').content", label)
    assert drawn == f'"{zh("ui.upload_button")}"' and "Upload" not in upload.text, "the uploader's button says 'Upload'"
    cv = tmp_path / "cv.md"
    cv.write_text(RESUME, encoding="utf-8")
    browser.find_elements(By.CSS_SELECTOR, '[data-testid="stFileUploaderDropzoneInput"]')[0].send_keys(str(cv))
    shown(browser, prefix("resume.structure"), "the upload is parsed")
    click(browser, '[data-testid="stButton"] button', zh("resume.save_master"))
    shown(browser, zh("resume.saved", label=zh("resume.master"), revision=1), "the master version")
    click(browser, '[data-testid="stTab"]', zh("resume.tab_jd"))
    type_text(browser, zh("resume.jd"), JD)
    wait(browser, lambda d: re.fullmatch(r"\d+%", metric(d, zh("resume.coverage"))), "no coverage figure")
    # the figure shows while the run that Ctrl+Enter started may still be drawing the later tabs: wait for its end
    wait_idle(browser)
    assert metric(browser, zh("resume.coverage")) != "100%"  # Megatron pipelines are not in the résumé
    shot(browser, "resume-jd")
    click(browser, '[data-testid="stTab"]', zh("dx.tab"))
    wait(browser, lambda d: metric(d, zh("dx.quant")).isdigit(), "no quantification score")
    wait(browser, lambda d: metric(d, zh("dx.coverage")).isdigit(), "the JD pasted on the other tab is not used")
    assert "优化 NCCL 通信，训练吞吐提升" in page_text(browser), "the bullet without a result is explained"
    assert_no_exception(browser, "resume")
    shot(browser, "resume-diagnosis")

    browser.get(server + "/applications?lang=zh")
    wait_for_title(browser, title("applications", 0))
    wait_idle(browser)
    if not field(browser, "stTextInput", zh("apps.company")).is_displayed():
        open_expander(browser, zh("apps.new"))
    type_text(browser, zh("apps.company"), "ACME", area=False, in_form=True)
    type_text(browser, zh("apps.job_title"), "训练稳定性工程师", area=False, in_form=True)
    choose(browser, zh("apps.status"), "已投递")
    choose(browser, zh("apps.resume"), zh("resume.master"))
    click(browser, '[data-testid="stFormSubmitButton"] button', zh("apps.add"))
    shown(browser, zh("apps.added", company="ACME"), "the card is added")
    wait_idle(browser)
    assert zh("va.empty") not in page_text(browser), "a sent card is counted under its résumé version"
    open_expander(browser, zh("apps.edit"))
    type_text(browser, zh("apps.notes"), "周三电话面：问了 ZeRO-3 通信量", in_form=True)
    click(browser, '[data-testid="stFormSubmitButton"] button', zh("apps.save"))
    shown(browser, zh("apps.saved", company="ACME"), "the edit is saved")
    wait_idle(browser)
    open_expander(browser, zh("apps.edit"))
    notes = field(browser, "stTextArea", zh("apps.notes")).find_element(By.TAG_NAME, "textarea")
    assert notes.get_attribute("value").startswith("周三电话面"), "the saved note is what the form shows"
    shot(browser, "applications")
    click(browser, '[data-testid="stCheckbox"] label', zh("apps.delete_confirm"))
    wait_idle(browser)
    click(browser, '[data-testid="stButton"] button', zh("apps.delete"))
    shown(browser, zh("apps.deleted", company="ACME"), "the card is deleted")
    wait_idle(browser)
    assert_no_exception(browser, "applications")
    assert zh("va.empty") in page_text(browser), "nothing sent is left to count"


def test_an_own_answer_is_graded_listed_and_in_the_export(server: str, browser, tmp_path: Path) -> None:
    import json
    import re
    import zipfile

    from selenium.webdriver.common.by import By

    qid = "mem-what-fills-gpu"
    answer = "模型状态每参数 16 字节，7B 不切分 112 GB；激活随 batch 和序列长度增长；还有 NCCL 缓冲和碎片。"
    browser.get(server + f"/bank?lang=zh&q={qid}")
    wait_for_title(browser, title("bank", 0))
    wait_idle(browser)
    open_expander(browser, zh("my.title"))
    type_text(browser, zh("my.box"), answer)
    click(browser, '[data-testid="stButton"] button', zh("my.save"))
    shown(browser, prefix("my.saved"), "the saved answer's grade")
    score = int(re.search(r"(\d+) / 100", page_text(browser)).group(1))
    assert score > 0, "an answer that covers key points scores above zero"
    shot(browser, "bank-own-answer")

    browser.get(server + "/my_answers?lang=zh")
    wait_for_title(browser, title("my_answers", 0))
    wait_idle(browser)
    links = [a.get_attribute("href") or "" for a in browser.find_elements(By.CSS_SELECTOR, '[data-testid="stMain"] a')]
    assert any(f"q={qid}" in href for href in links), f"the question is listed with a link to it: {links}"
    shot(browser, "my-answers")

    downloads = tmp_path / "downloads"
    browser.get(server + "/settings?lang=zh")
    wait_for_title(browser, title("settings", 0))
    wait_idle(browser)
    click(browser, '[data-testid="stDownloadButton"] button', zh("settings.export"))
    wait(browser, lambda d: [p for p in downloads.glob("*.zip")], "the export zip is not downloaded")
    (archive,) = downloads.glob("*.zip")
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        rows = [json.loads(z.read(n)) for n in names if n.startswith("data/") and n.endswith(".json")]
    assert "README.md" in names and "applications.md" in names
    assert any(r.get("answer") == answer for table in rows for r in table), "the own answer is exported"
    shot(browser, "settings-export")


@pytest.mark.timeout(420)
def test_a_lab_preset_runs_to_completion_with_progress(server: str, browser, app_home: Path) -> None:
    """The cheapest real preset (4 steps, rank 1 killed after step 2): no made-up estimate before, progress while
    it runs, then the verdict drawn once with its checks in Chinese, the plots, the downloads, the report on disk,
    the run under past runs, and an estimate from it for the next run."""
    import json

    from selenium.webdriver.common.by import By

    quick = "快速版：4 步，第 2 步杀死 rank 1"
    browser.get(server + "/labs?lang=zh&lab=fault_resume")
    wait_for_title(browser, title("labs", 0))
    click(browser, '[data-testid="stRadio"] label', quick)
    wait_idle(browser)
    assert zh("labs.no_estimate") in page_text(browser), "no past run: no made-up estimate"
    click(browser, '[data-testid="stButton"] button', zh("labs.run_preset"))
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="stProgress"]'), "no progress shown")
    shot(browser, "labs-running")
    wait(browser, lambda d: zh("labs.passed") in page_text(d)
         or d.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]'), "the lab did not finish", timeout_s=300)
    wait_idle(browser)
    assert_no_exception(browser, "labs")
    text = page_text(browser)
    assert text.count(zh("labs.passed")) == 1, "the result is drawn once"
    assert by_text(browser, '[data-testid="stDownloadButton"] button', zh("labs.download_report"))
    assert browser.find_elements(By.CSS_SELECTOR, '[data-testid="stImage"] img'), "the lab's plots"
    assert zh("labs.history") in text and zh("home.no_runs") not in text, "the run is listed under past runs"
    shot(browser, "labs-result")
    (report,) = (app_home / "runs" / "fault_resume").glob("*/report.json")
    rep = json.loads(report.read_text())
    assert rep["passed"] and rep["config"]["steps"] == 4 and rep["restarts"] == 1, "the preset's options ran"
    browser.get(server + "/labs?lang=zh&lab=fault_resume")
    wait_for_title(browser, title("labs", 0))
    click(browser, '[data-testid="stRadio"] label', quick)
    wait_idle(browser)
    assert prefix("labs.estimate_same") in page_text(browser), "the finished run now gives an estimate"


def test_a_kata_is_checked_on_real_ranks_then_solved(server: str, browser) -> None:
    """Issue 18: the stub fails with its first case named and a hint, progress shows while the judge runs, the
    reference is locked until then; the reference typed into the editor passes every case."""
    from selenium.webdriver.common.by import By

    from labs.kata.catalog import all_katas

    kata = all_katas()["ring_allreduce"]
    browser.get(server + "/katas?lang=zh&kata=ring_allreduce")
    wait_for_title(browser, title("katas", 0))
    wait_idle(browser)
    assert zh("kata.reveal_locked") in page_text(browser)
    editor = field(browser, "stTextArea", zh("kata.editor")).find_element(By.TAG_NAME, "textarea")
    assert editor.get_attribute("value") == kata.stub()
    shot(browser, "katas")
    click(browser, '[data-testid="stButton"] button', zh("kata.check"))
    shown(browser, "未通过：0/5", "the stub is judged", timeout_s=120)
    text = page_text(browser)
    assert "even_split" in text and "NotImplementedError" in text and zh("kata.reveal_locked") not in text
    type_text(browser, zh("kata.editor"), kata.reference())
    click(browser, '[data-testid="stButton"] button', zh("kata.check"))
    shown(browser, "通过：5/5", "the reference passes", timeout_s=120)
    assert_no_exception(browser, "katas")
    shot(browser, "katas-solved")
