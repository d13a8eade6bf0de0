"""The bank page's logic, apart from its widgets: search without a cap, a question named by its id, and paging."""

from __future__ import annotations

import math
from dataclasses import dataclass

from question_bank.loader import Bank
from question_bank.search import Hit, Index

PER_PAGE = 20


@dataclass(frozen=True)
class Found:
    hits: list[Hit]
    no_terms: bool = False  # the query had text but no word the index knows how to search for


def find(index: Index, bank: Bank, query: str, filters: dict) -> Found:
    """Every match, best first. An exact question id shows that question (a link from another page names it);
    a query with text but no searchable word ("!!!", "的的") matches nothing rather than listing everything."""
    query = query.strip()
    if query in bank.by_id:
        return Found([Hit(bank.by_id[query], 0.0)])
    if query and not any(index.query_terms(query)):  # no own token, no skill named
        return Found([], no_terms=True)
    return Found(index.search(query, len(bank.questions), **filters))


def page_count(n: int, per_page: int = PER_PAGE) -> int:
    return max(1, math.ceil(n / per_page))


def clamp_page(page: int, n: int, per_page: int = PER_PAGE) -> int:
    """A page number in 1..page_count: a stale page (the results shrank) shows the last one."""
    return min(max(1, page), page_count(n, per_page))


def page_of(hits: list[Hit], page: int, per_page: int = PER_PAGE) -> list[Hit]:
    page = clamp_page(page, len(hits), per_page)
    return hits[(page - 1) * per_page: page * per_page]
