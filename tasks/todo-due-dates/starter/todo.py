"""mdtodo: summarise a Markdown checklist into todo.json.

Usage: python3 todo.py --input FILE.md --output DIR
"""
import argparse
import sys

from mdtodo.parse import parse_document
from mdtodo.report import write_report


def main(argv=None):
    ap = argparse.ArgumentParser(description='Summarise a Markdown checklist into todo.json.')
    ap.add_argument('--input', required=True, help='the Markdown checklist')
    ap.add_argument('--output', required=True, help='directory to write todo.json into')
    args = ap.parse_args(argv)
    try:
        with open(args.input, encoding='utf-8') as f:
            text = f.read()
    except OSError as err:
        print(f'todo: cannot read {args.input}: {err}', file=sys.stderr)
        return 2
    write_report(parse_document(text), args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
