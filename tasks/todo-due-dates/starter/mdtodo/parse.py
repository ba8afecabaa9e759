"""Parsing of Markdown checklists into sections and items."""
import re

HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
ITEM = re.compile(r'^(\s*)[-*+]\s+\[([ xX])\]\s+(.*?)\s*$')
UNTITLED = '(untitled)'


def parse_document(text):
    """Returns {'title': str|None, 'sections': [{'title': str, 'items': [{'text': str, 'done': bool}]}]}.

    The first level-1 heading is the document title and also opens a section; every heading opens a section.
    Items before any heading belong to a section titled '(untitled)'. Sections without items are dropped.
    """
    title = None
    sections = []
    current = None
    for line in text.splitlines():
        m = HEADING.match(line)
        if m:
            if title is None and len(m.group(1)) == 1:
                title = m.group(2)
            current = {'title': m.group(2), 'items': []}
            sections.append(current)
            continue
        m = ITEM.match(line)
        if m:
            if current is None:
                current = {'title': UNTITLED, 'items': []}
                sections.append(current)
            current['items'].append(parse_item(m.group(3), m.group(2)))
    return {'title': title, 'sections': [s for s in sections if s['items']]}


def parse_item(text, mark):
    """One checklist item: its text and whether it is done ('x' or 'X')."""
    return {'text': text, 'done': mark in 'xX'}
