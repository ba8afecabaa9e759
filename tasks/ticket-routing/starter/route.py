"""Ticket router (a0): routes every support ticket of a batch to one queue with a first-match keyword rule.

Usage: python3 route.py --input input.md --output DIR   → DIR/routes.json, DIR/run_report.json
"""
import argparse
import json
import os
import re
import sys

QUEUES = ('billing', 'technical', 'account', 'shipping', 'other')

# First match wins, in this order.
RULES = [
    ('technical', ('error', 'crash', 'bug')),
    ('billing', ('refund', 'invoice', 'charged')),
    ('account', ('password', 'log in')),
    ('shipping', ('delivery', 'tracking')),
]


def route(ticket):
    text = (ticket.get('subject', '') + ' ' + ticket.get('body', '')).lower()
    for queue, words in RULES:
        if any(w in text for w in words):
            return queue
    return 'other'


def read_tickets(input_path):
    with open(input_path, encoding='utf-8') as f:
        m = re.search(r'^Tickets:\s*(\S+)\s*$', f.read(), re.M)
    if not m:
        raise ValueError('the request has no "Tickets:" line')
    path = os.path.join(os.path.dirname(os.path.abspath(input_path)), m.group(1))
    with open(path, encoding='utf-8') as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--input', required=True)
    ap.add_argument('--output', required=True)
    args = ap.parse_args(argv)
    try:
        tickets = read_tickets(args.input)
    except (OSError, ValueError) as err:
        print(f'route: {err}', file=sys.stderr)
        return 2
    routes = {t['id']: route(t) for t in tickets}
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, 'routes.json'), 'w', encoding='utf-8') as f:
        json.dump({'routes': routes}, f, indent=2)
    with open(os.path.join(args.output, 'run_report.json'), 'w', encoding='utf-8') as f:
        json.dump({'status': 'complete', 'artifacts': ['routes.json'], 'tickets': len(routes)}, f)
    return 0


if __name__ == '__main__':
    sys.exit(main())
