#!/usr/bin/env python3
"""An independent reading of the envelope's HTML selectors (README "Selectors",
docs/envelope.md), on Python's html.parser: it shares no code with src/envelope/select/.

Reads JSON from stdin, a list of {"html": TEXT, "selectors": [SELECTOR, ...]}, and writes
a JSON list with, for each case, the value of each selector: the first matching element's
text content (descendant text in document order, entities decoded, comments left out,
ASCII white space trimmed at both ends) or, with ` @attr`, its attribute; "" without a
match.

The tree is built with HTML's rules for what the generated documents hold (a standards
mode document): void elements, raw text (`script`, `style`) and escapable raw text
(`textarea`, `title`), foreign content (`svg`, `math`: self-closing tags, CDATA), the end
tags that HTML implies (`p` before a block, `li`, `dt`/`dd`, `option`/`optgroup`,
headings, table cells and rows), and end tags that close the nearest open element of
their name unless a special element is in the way. Selectors: type, `*`, `#id`,
`.class`, attribute selectors, descendant and child combinators, `:first-child`,
`:nth-child`, `:first-of-type`, `:nth-of-type`, `:not(...)`, selector lists.
"""
import html
import html.entities
import html.parser
import json
import re
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr", "param", "keygen", "basefont", "bgsound", "frame"}
RAW = {"script", "style"}
RCDATA = {"textarea", "title"}
CLOSE_P = {"address", "article", "aside", "blockquote", "center", "details", "dialog", "dir",
           "div", "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup",
           "main", "menu", "nav", "ol", "p", "search", "section", "summary", "ul", "h1", "h2",
           "h3", "h4", "h5", "h6", "pre", "listing", "form", "table", "hr", "xmp", "plaintext"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SPECIAL = {"address", "applet", "area", "article", "aside", "base", "basefont", "bgsound",
           "blockquote", "body", "br", "button", "caption", "center", "col", "colgroup", "dd",
           "details", "dir", "div", "dl", "dt", "embed", "fieldset", "figcaption", "figure",
           "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
           "header", "hgroup", "hr", "html", "iframe", "img", "input", "keygen", "li", "link",
           "listing", "main", "marquee", "menu", "meta", "nav", "noembed", "noframes",
           "noscript", "object", "ol", "p", "param", "plaintext", "pre", "script", "search",
           "section", "select", "source", "style", "summary", "table", "tbody", "td",
           "template", "textarea", "tfoot", "th", "thead", "title", "tr", "track", "ul", "wbr",
           "xmp"}
SCOPE = {"applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"}
IMPLIED = {"dd", "dt", "li", "optgroup", "option", "p", "rb", "rp", "rt", "rtc"}
# Start tags that leave foreign content.
BREAKOUT = {"b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt",
            "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li",
            "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span",
            "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var"}
WS = " \t\n\r\x0c"
ENTITY = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


def unescape(text, attribute):
    """HTML's character references; in an attribute a legacy one without `;` followed by
    `=` or an alphanumeric stays as written."""
    def one(m):
        ref = m.group(1)
        if ref[0] == "#":
            return html.unescape(m.group(0))
        if ref in html.entities.html5:
            return html.entities.html5[ref]
        for k in range(len(ref) - 1, 0, -1):
            if ref[:k] in html.entities.html5:
                if attribute and (ref[k].isalnum() or ref[k] == "="):
                    return m.group(0)
                return html.entities.html5[ref[:k]] + ref[k:]
        return m.group(0)
    return ENTITY.sub(one, text)


class Element:
    def __init__(self, tag, attrs, parent, foreign):
        self.tag = tag
        self.attrs = attrs
        self.parent = parent
        self.foreign = foreign
        self.children = []
        self.text = []  # text pieces and child elements, in order
        if parent is not None:
            parent.children.append(self)
            parent.text.append(self)

    def content(self):
        out = []
        for piece in self.text:
            out.append(piece if isinstance(piece, str) else piece.content())
        return "".join(out)


class Builder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None, False)
        self.stack = [self.root]
        self.order = []  # elements in document order
        self.raw = None

    # The parser's own raw text modes are replaced by ours (foreign content has none):
    # the element's text is taken as written and decoded here.
    def set_cdata_mode(self, elem, **_):
        if self.raw is not None:
            super().set_cdata_mode(elem)

    def current(self):
        return self.stack[-1]

    def foreign(self):
        return self.current().foreign

    def pop_until(self, tags):
        while len(self.stack) > 1:
            el = self.stack.pop()
            if el.tag in tags:
                return

    def in_scope(self, tag, extra=()):
        for el in reversed(self.stack[1:]):
            if el.tag == tag and not el.foreign:
                return True
            if (el.tag in SCOPE or el.tag in extra) and not el.foreign:
                return False
        return False

    def close_p(self):
        if self.in_scope("p", ("button",)):
            self.pop_until({"p"})

    def implied(self, keep=()):
        while self.current().tag in IMPLIED and self.current().tag not in keep:
            self.stack.pop()

    def handle_starttag(self, tag, attrs):
        self.start(tag, self.attributes(), False)

    def handle_startendtag(self, tag, attrs):
        self.start(tag, self.attributes(), True)

    def attributes(self):
        # From the tag's text, to decode them with the attribute rules.
        text = self.get_starttag_text() or ""
        m = html.parser.tagfind_tolerant.match(text, 1)
        k = m.end() if m else 1
        attrs = {}
        while True:
            m = html.parser.attrfind_tolerant.match(text, k)
            if not m:
                break
            name, rest, value = m.group(1, 2, 3)
            if not rest:
                value = ""
            elif value[:1] == "'" == value[-1:] or value[:1] == '"' == value[-1:]:
                value = value[1:-1]
            name = name.lower()
            if name and name not in attrs:
                attrs[name] = unescape(value or "", True)
            k = m.end()
        return attrs

    def start(self, tag, attrs, selfclosing):
        if self.foreign():
            if tag in BREAKOUT:
                while self.current().foreign:
                    self.stack.pop()
            else:
                el = Element(tag, attrs, self.current(), True)
                self.order.append(el)
                if not selfclosing:
                    self.stack.append(el)
                return
        if tag in ("svg", "math"):
            el = Element(tag, attrs, self.current(), True)
            self.order.append(el)
            if not selfclosing:
                self.stack.append(el)
            return
        if tag in CLOSE_P:
            self.close_p()
            if tag in HEADINGS and self.current().tag in HEADINGS:
                self.stack.pop()
        elif tag in ("li", "dd", "dt"):
            same = {"li"} if tag == "li" else {"dd", "dt"}
            for el in reversed(self.stack[1:]):
                if el.tag in same:
                    self.implied(keep=same)
                    self.pop_until({el.tag})
                    break
                if el.tag in SPECIAL and el.tag not in ("address", "div", "p"):
                    break
            self.close_p()
        elif tag in ("option", "optgroup"):
            if self.current().tag == "option":
                self.stack.pop()
        elif tag in ("td", "th"):
            if self.in_scope("td") or self.in_scope("th"):
                self.implied()
                self.pop_until({"td", "th"})
        elif tag == "tr":
            for cell in ("td", "th"):
                if self.in_scope(cell):
                    self.pop_until({"td", "th"})
            if self.in_scope("tr"):
                self.pop_until({"tr"})
        el = Element(tag, attrs, self.current(), False)
        self.order.append(el)
        if tag not in VOID:
            self.stack.append(el)
            if tag in RAW or tag in RCDATA:
                self.raw = tag
                super().set_cdata_mode(tag)

    def handle_endtag(self, tag):
        if self.raw is not None:
            self.raw = None
            self.clear_cdata_mode()
        if tag == "p" and not self.in_scope("p", ("button",)):
            # `</p>` without an open `p` makes an empty one.
            self.start("p", {}, False)
        if tag == "br":
            self.start("br", {}, False)
            return
        if self.foreign():
            for i in range(len(self.stack) - 1, 0, -1):
                el = self.stack[i]
                if not el.foreign:
                    break
                if el.tag == tag:
                    del self.stack[i:]
                    return
        if tag in SPECIAL:
            # A block's end tag closes it when it is in scope, whatever is inside.
            extra = {"li": ("ol", "ul"), "p": ("button",)}.get(tag, ())
            names = HEADINGS if tag in HEADINGS else {tag}
            if any(self.in_scope(t, extra) for t in names):
                self.pop_until(names)
            return
        for i in range(len(self.stack) - 1, 0, -1):
            el = self.stack[i]
            if el.tag == tag:
                del self.stack[i:]
                return
            if el.tag in SPECIAL and not el.foreign:
                return

    def handle_data(self, data):
        # The parser decodes text outside raw text (html.unescape: HTML's rules for text);
        # inside raw text it gives it as written.
        if self.raw in RCDATA:
            data = unescape(data, False)
        self.current().text.append(data)

    def unknown_decl(self, data):
        if self.foreign() and data.startswith("CDATA["):
            self.current().text.append(data[6:])


# Selectors.

TOKEN = re.compile(r"""\s*(?:(?P<comb>>)|(?P<comma>,))\s*|(?P<ws>\s+)""")
IDENT = r"(?:\\.|[-\w])+"


def ident(s):
    return re.sub(r"\\(.)", r"\1", s)


def split_top(text, sep):
    parts, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += c
    parts.append(cur)
    return parts


def parse_list(text):
    text = re.sub(r"/\*.*?\*/", "", text)
    return [parse_complex(p.strip()) for p in split_top(text, ",")]


def parse_complex(text):
    """[(combinator, compound)], the combinator before each compound (None first)."""
    out, comb, i = [], None, 0
    while i < len(text):
        m = re.match(r"\s*>\s*", text[i:])
        if m and out:
            comb, i = ">", i + m.end()
            continue
        m = re.match(r"\s+", text[i:])
        if m:
            comb, i = comb or " ", i + m.end()
            continue
        compound, n = parse_compound(text, i)
        out.append((comb if out else None, compound))
        comb, i = None, n
    return out


def parse_compound(text, i):
    tests = []
    m = re.match(r"\*|" + IDENT, text[i:])
    if m and not text[i:].startswith(("#", ".")):
        if m.group(0) != "*":
            tests.append(("tag", ident(m.group(0)).lower()))
        i += m.end()
    while i < len(text) and not text[i].isspace() and text[i] != ">":
        c = text[i]
        if c == "#":
            m = re.match(IDENT, text[i + 1:])
            tests.append(("attr", "id", "=", ident(m.group(0))))
            i += 1 + m.end()
        elif c == ".":
            m = re.match(IDENT, text[i + 1:])
            tests.append(("attr", "class", "~=", ident(m.group(0))))
            i += 1 + m.end()
        elif c == "[":
            m = re.match(r"\[\s*(" + IDENT + r")\s*(?:([~^$*|]?=)\s*(\"[^\"]*\"|'[^']*'|"
                         + IDENT + r")\s*)?\]", text[i:])
            name, op, value = m.group(1), m.group(2), m.group(3)
            if value and value[0] in "\"'":
                value = value[1:-1]
            elif value:
                value = ident(value)
            tests.append(("attr", ident(name).lower(), op, value))
            i += m.end()
        elif c == ":":
            m = re.match(r":([-\w]+)(?:\(([^()]*(?:\([^()]*\)[^()]*)*)\))?", text[i:])
            name, arg = m.group(1), m.group(2)
            if name == "not":
                tests.append(("not", [parse_complex(p.strip()) for p in split_top(arg, ",")]))
            elif name == "first-child":
                tests.append(("nth", False, 0, 1))
            elif name == "first-of-type":
                tests.append(("nth", True, 0, 1))
            else:
                a, b = nth(arg)
                tests.append(("nth", name == "nth-of-type", a, b))
            i += m.end()
        else:
            raise ValueError("selector " + text)
    return tests, i


def nth(arg):
    arg = arg.replace(" ", "").lower()
    if arg == "odd":
        return 2, 1
    if arg == "even":
        return 2, 0
    m = re.fullmatch(r"([+-]?\d*)n([+-]\d+)?", arg)
    if m:
        a = m.group(1)
        a = 1 if a in ("", "+") else -1 if a == "-" else int(a)
        return a, int(m.group(2) or 0)
    return 0, int(arg)


def position(el, of_type):
    sibs = [s for s in el.parent.children if not of_type or s.tag == el.tag]
    return sibs.index(el) + 1


def matches_compound(el, tests):
    for t in tests:
        if t[0] == "tag":
            if el.tag != t[1]:
                return False
        elif t[0] == "attr":
            _, name, op, value = t
            if name not in el.attrs:
                return False
            v = el.attrs[name]
            ok = (op is None or (op == "=" and v == value)
                  or (op == "~=" and value != "" and value in v.split())
                  or (op == "^=" and value != "" and v.startswith(value))
                  or (op == "$=" and value != "" and v.endswith(value))
                  or (op == "*=" and value != "" and value in v)
                  or (op == "|=" and (v == value or v.startswith(value + "-"))))
            if not ok:
                return False
        elif t[0] == "nth":
            _, of_type, a, b = t
            n = position(el, of_type)
            if a == 0:
                if n != b:
                    return False
            elif (n - b) % a != 0 or (n - b) // a < 0:
                return False
        elif t[0] == "not":
            if any(matches_complex(el, c) for c in t[1]):
                return False
    return True


def matches_complex(el, parts):
    if not parts:
        return False
    comb, last = parts[-1]
    if not matches_compound(el, last):
        return False
    if len(parts) == 1:
        return True
    up = el.parent
    if parts[-1][0] == ">":
        return up is not None and up.tag != "#document" and matches_complex(up, parts[:-1])
    while up is not None and up.tag != "#document":
        if matches_complex(up, parts[:-1]):
            return True
        up = up.parent
    return False


def split_attr(text):
    at = text.rfind("@")
    if at >= 0:
        attr = text[at + 1:]
        if attr and not any(c.isspace() or c in "\"'>/=[]()@," for c in attr):
            return text[:at].rstrip(), attr.lower()
    return text, None


def select(doc, selector):
    css, attr = split_attr(selector)
    sel = parse_list(css)
    for el in doc.order:
        if any(matches_complex(el, c) for c in sel):
            if attr is not None:
                return el.attrs.get(attr, "")
            return el.content().strip(WS)
    return ""


def main():
    cases = json.load(sys.stdin)
    out = []
    for case in cases:
        b = Builder()
        # A tag cut off by the end of the body is dropped, as HTML's tokenizer drops it
        # (html.parser would give it as text).
        b.feed(re.sub(r"<[/!?a-zA-Z][^>]*$", "", case["html"]))
        b.close()
        if b.raw is not None and b.rawdata:
            # Raw text without its end tag runs to the end (html.parser keeps it back).
            b.handle_data(b.rawdata)
        out.append([select(b, s) for s in case["selectors"]])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
