"""The pages, in sidebar order: (file under app_pages/, icon, i18n key of the page's title). The file name is also
the page's URL path. Kept apart from the entry script so tests can read it without running the app."""

PAGES: list[tuple[str, str, str]] = [
    ("home", "🏠", "home.title"),
    ("bank", "📚", "bank.title"),
    ("practice", "🔁", "practice.title"),
    ("interview", "🎤", "iv.title"),
    ("my_answers", "📝", "my.page_title"),
    ("resume", "📄", "resume.title"),
    ("applications", "🗂️", "apps.title"),
    ("labs", "🧪", "labs.title"),
    ("katas", "⌨️", "kata.title"),
    ("checklist", "✅", "checklist.title"),
    ("settings", "⚙️", "settings.title"),
]
