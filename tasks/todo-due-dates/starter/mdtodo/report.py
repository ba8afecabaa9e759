"""Building and writing todo.json (the published contract, CONTRACT.md)."""
import json
import os


def build_report(doc):
    sections = []
    done_total = open_total = 0
    for s in doc['sections']:
        done = sum(1 for it in s['items'] if it['done'])
        open_ = len(s['items']) - done
        sections.append({'title': s['title'], 'items': s['items'], 'done': done, 'open': open_})
        done_total += done
        open_total += open_
    return {
        'title': doc['title'],
        'sections': sections,
        'totals': {'items': done_total + open_total, 'done': done_total, 'open': open_total},
    }


def write_report(doc, output_dir):
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, 'todo.json')
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(build_report(doc), f, indent=2)
        f.write('\n')
    return path
