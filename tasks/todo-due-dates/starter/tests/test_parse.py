import unittest

from mdtodo.parse import parse_document


class ParseTest(unittest.TestCase):
    def test_sections_and_title(self):
        doc = parse_document('# Plan\n- [ ] a\n## Later\n- [x] b\n')
        self.assertEqual(doc['title'], 'Plan')
        self.assertEqual([s['title'] for s in doc['sections']], ['Plan', 'Later'])

    def test_all_bullets_and_marks(self):
        doc = parse_document('# P\n- [ ] dash\n* [x] star\n+ [X] plus upper\n')
        items = doc['sections'][0]['items']
        self.assertEqual([i['text'] for i in items], ['dash', 'star', 'plus upper'])
        self.assertEqual([i['done'] for i in items], [False, True, True])

    def test_nested_items_count(self):
        doc = parse_document('# P\n- [ ] parent\n    - [x] child\n\t* [ ] tabbed\n')
        self.assertEqual(len(doc['sections'][0]['items']), 3)

    def test_untitled_and_empty_sections(self):
        doc = parse_document('- [ ] loose\n# Empty\n# Full\n- [ ] x\n')
        self.assertEqual(doc['title'], 'Empty')
        self.assertEqual([s['title'] for s in doc['sections']], ['(untitled)', 'Full'])

    def test_text_is_trimmed(self):
        doc = parse_document('- [ ]   spaced out   \n')
        self.assertEqual(doc['sections'][0]['items'][0]['text'], 'spaced out')

    def test_plain_list_lines_are_not_items(self):
        doc = parse_document('# P\n- not a task\n- [] broken\n')
        self.assertEqual(doc['sections'], [])


if __name__ == '__main__':
    unittest.main()
