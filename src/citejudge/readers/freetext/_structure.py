"""A citation written as a Markdown link: ``[Title](url)`` and list lines with its authors and year."""

from __future__ import annotations

import logging
import re

from citejudge.readers._text import _ET_AL_RE, _tidy
from citejudge.readers.freetext._authors import split_author_string
from citejudge.readers.freetext._fields import _best_year
from citejudge.records import CitedWork

logger = logging.getLogger(__name__)


def _parse_markdown(s: str, work: CitedWork) -> bool:
    m = re.match(r"^\s*\[([^\]\n]{3,500})\]\(([^)\s]+)\)", s)
    if not m:
        return False
    work.title = _tidy(m.group(1))
    rest = s[m.end() :]
    lines = [ln.strip() for ln in rest.splitlines() if ln.strip()]
    for ln in lines:
        body = re.sub(r"^[-*+]\s+", "", ln)
        if not work.authors and ln[:1] in "-*+":
            low = body.lower()
            work.et_al = work.et_al or bool(_ET_AL_RE.search(body))
            body2 = _ET_AL_RE.sub("", body).strip(" ,;.")
            if not low.startswith(("http", "doi", "arxiv")):
                work.authors = split_author_string(body2)
                continue
        y = _best_year(body)
        if y and work.year is None:
            work.year, work.year_raw = int(y[3][:4]), y[3]
    return True
