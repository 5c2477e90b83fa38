#!/usr/bin/python3
"""Parses report.html with the standard library's HTML parser: exactly the two
script elements the writer makes (data, code), no element that loads or
embeds anything, and each NAME given on the command line present in the
embedded data, unaltered, as a string (so it was escaped, not dropped);
A backslash-u escape (four hex digits) in a NAME stands for that character.

    check_html_markup.py PAGE NAME...
"""

import html.parser
import json
import sys


class Scan(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.in_data, self.data = [], False, ""

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.in_data = tag == "script" and ("id", "report-data") in attrs

    def handle_endtag(self, tag):
        self.in_data = False

    def handle_data(self, data):
        if self.in_data:
            self.data += data


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def main():
    page = sys.argv[1]
    names = [n.encode("ascii", "backslashreplace").decode("unicode_escape") for n in sys.argv[2:]]
    with open(page, "rb") as f:
        text = f.read().decode("utf-8")  # strict: the page must be valid UTF-8
    scan = Scan()
    scan.feed(text)
    problems = []
    if scan.tags.count("script") != 2:
        problems.append("%d script elements" % scan.tags.count("script"))
    for tag in ("img", "iframe", "object", "embed", "link", "base", "form"):
        if tag in scan.tags:
            problems.append("a <%s> element" % tag)
    found = set()
    try:
        data = json.loads(scan.data)
    except ValueError as e:
        data = None
        problems.append("the embedded data is not JSON: %s" % e)
    for s in strings(data):
        for n in names:
            if n in s:
                found.add(n)
    problems += ["name %r not in the embedded data" % n for n in names if n not in found]
    print("\n".join(problems) or "markup ok: %d elements" % len(scan.tags))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
