import json
import os
import subprocess
import sys
import tempfile
import unittest

from mdtodo.parse import parse_document
from mdtodo.report import build_report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ReportTest(unittest.TestCase):
    def test_totals(self):
        r = build_report(parse_document('# P\n- [x] a\n- [ ] b\n* [X] c\n'))
        self.assertEqual(r['totals'], {'items': 3, 'done': 2, 'open': 1})
        self.assertEqual((r['sections'][0]['done'], r['sections'][0]['open']), (2, 1))

    def test_contract_fields(self):
        r = build_report(parse_document('# P\n- [ ] a\n'))
        self.assertTrue({'title', 'sections', 'totals'} <= set(r))
        self.assertTrue({'title', 'items', 'done', 'open'} <= set(r['sections'][0]))
        self.assertTrue({'text', 'done'} <= set(r['sections'][0]['items'][0]))

    def test_cli_writes_todo_json(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, 'plan.md')
            with open(src, 'w') as f:
                f.write('# Release\n- [x] tag\n* [ ] announce\n')
            out = os.path.join(d, 'out')
            proc = subprocess.run([sys.executable, os.path.join(ROOT, 'todo.py'), '--input', src, '--output', out])
            self.assertEqual(proc.returncode, 0)
            with open(os.path.join(out, 'todo.json')) as f:
                r = json.load(f)
            self.assertEqual(r['title'], 'Release')
            self.assertEqual(r['totals'], {'items': 2, 'done': 1, 'open': 1})

    def test_cli_missing_input_exits_2(self):
        with tempfile.TemporaryDirectory() as d:
            proc = subprocess.run([sys.executable, os.path.join(ROOT, 'todo.py'), '--input', os.path.join(d, 'nope.md'),
                                   '--output', d], stderr=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 2)


if __name__ == '__main__':
    unittest.main()
