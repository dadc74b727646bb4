#!/usr/bin/env python3
"""The markdown tables of docs/gprmax-corpus.md from corpus_check.sh's TSV.

Usage: python3 scripts/gprmax/corpus_table.py corpus.tsv > tables.md

Prints the summary counts, one table per folder (file, cells, outcome, message) and the
refusals that are not among the allowed ones (gprMax 2 syntax, #taguchi, too large), grouped by
what they need. Each refusal is put in a class by its message (CLASSES below)."""

import collections
import sys

# (class, text in the message, allowed: the exceptions, or a gpustencil gap)
CLASSES = [
    ('gprMax 2 syntax', "gprMax 2's syntax", True),
    ('#taguchi', '#taguchi', True),
    ('MRIPML (#pml_formulation: MRIPML)', 'MRIPML', False),
    ('second-order CFS PML (two #pml_cfs)', 'only a first-order CFS', False),
    ("#geometry_objects_read reaching past the domain (gprMax 4 fails on it too in a serial run)",
     'does not fit in the domain there', False),
    ("gprMax's file imports an antenna module its own branch does not have", 'user_libs', False),
]


def classify(outcome, message):
    if outcome == 'too-large':
        return 'too large for the memory', True
    if outcome != 'refused':
        return outcome, False
    for name, text, allowed in CLASSES:
        if text in message:
            return name, allowed
    return 'other: ' + message, False


def short(name, message):
    """The message without 'gpustencil: [fdtd: ]' and the file's own path ('line N: ...')."""
    for head in ('gpustencil: ', 'fdtd: '):
        if message.startswith(head):
            message = message[len(head):]
    rel = name.split('/', 1)[1] if '/' in name else name
    if message.startswith(rel + ':'):
        rest = message[len(rel) + 1:]
        line, _, tail = rest.partition(': ')
        message = 'line {}: {}'.format(line, tail) if line.isdigit() else rest.lstrip(' :')
    return message


def cell(text):
    return text.replace('|', '\\|')


def main():
    rows = []
    with open(sys.argv[1], encoding='utf-8') as f:
        header = f.readline()
        assert header.startswith('file\t'), 'not corpus_check.sh output'
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            name, cells, outcome, message = (line.split('\t') + [''] * 4)[:4]
            rows.append((name, cells, outcome, message))
    counts = collections.Counter(r[2] for r in rows)
    print('| outcome | files |\n| --- | ---: |')
    for o in ('runs', 'refused', 'too-large', 'timeout', 'crash'):
        print('| {} | {} |'.format(o, counts.get(o, 0)))
    print('| all | {} |\n'.format(len(rows)))

    classes = collections.OrderedDict()
    for name, cells, outcome, message in rows:
        if outcome == 'runs':
            continue
        key = classify(outcome, short(name, message))
        classes.setdefault(key, []).append(name)
    print('| why not run | allowed by the issue | files |\n| --- | --- | ---: |')
    for (why, allowed), names in classes.items():
        print('| {} | {} | {} |'.format(cell(why), 'yes' if allowed else '**no**', len(names)))
    print()

    folders = collections.OrderedDict()
    for r in rows:
        folders.setdefault(r[0].rsplit('/', 1)[0], []).append(r)
    for folder, items in folders.items():
        print('### {}\n'.format(folder))
        print('| file | cells | outcome | message |\n| --- | --- | --- | --- |')
        for name, cells, outcome, message in items:
            shown = '**{}**'.format(outcome) if outcome not in ('runs',) else outcome
            print('| {} | {} | {} | {} |'.format(cell(name.rsplit('/', 1)[1]), cells, shown, cell(short(name, message))))
        print()


if __name__ == '__main__':
    main()
