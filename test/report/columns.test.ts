import { describe, expect, test } from 'vitest';
import {
  COLUMNS,
  type ColumnId,
  columnsOf,
  escapeHtml,
  renderHtml,
  renderJunit,
  renderMarkdown,
  renderTable,
  VIEWS,
  type ViewName,
} from '../../src/report/index.js';
import { sampleSummary } from './sample-summary.js';
import { expectValidSummary } from './summary-json-schema.js';

// Every renderer maps over the one column registry: these pin that the registry is well-formed and that what each
// renderer prints is what its view lists, so a column added to COLUMNS appears without touching a renderer.
const summary = sampleSummary();
expectValidSummary(summary);
const views = Object.keys(VIEWS) as ViewName[];

describe('the column registry', () => {
  test('every column is shown by some view, and a view names each header once', () => {
    for (const id of Object.keys(COLUMNS) as ColumnId[]) {
      expect(Object.keys(COLUMNS[id].views).length, id).toBeGreaterThan(0);
      for (const view of Object.keys(COLUMNS[id].views)) expect(views, `${id}: ${view}`).toContain(view);
    }
    for (const view of views) {
      const headers = columnsOf(view).map((c) => c.header);
      expect(new Set(headers).size, view).toBe(headers.length);
    }
  });

  test("a view's lead is one of its columns and comes first; the rest keep the registry order", () => {
    const order = Object.keys(COLUMNS);
    for (const view of views) {
      const ids: string[] = columnsOf(view).map((c) => c.id);
      const lead = (VIEWS[view] as { lead?: string }).lead;
      if (lead !== undefined) expect(ids[0], view).toBe(lead);
      const rest = lead === undefined ? ids : ids.slice(1);
      expect(rest, view).toEqual([...rest].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
    }
  });

  test('an unknown view fails naming the known ones', () => {
    expect(() => columnsOf('pdf' as ViewName)).toThrow(/unknown report view "pdf" \(known: console, markdown/);
  });
});

describe('each renderer prints its view', () => {
  test('the console table heads its columns with the console view, aligned as declared', () => {
    const [, head] = renderTable(summary).split('\n');
    expect(head.split(/\s{2,}/)).toEqual(columnsOf('console').map((c) => c.header));
  });

  test("report.md's three tables head and align their columns from their views", () => {
    const md = renderMarkdown(summary);
    for (const view of ['markdown', 'markdownGapClosure', 'markdownFailureModes'] as const) {
      const cols = columnsOf(view);
      const head = `| ${cols.map((c) => c.header).join(' | ')} |`;
      const align = `|${cols.map((c) => (c.align === 'right' ? '--:' : '---')).join('|')}|`;
      expect(md, view).toContain(`${head}\n${align}\n`);
    }
  });

  test("index.html's results table has a cell per html column, data-col being the column id", () => {
    const html = renderHtml(summary);
    const cols = columnsOf('html');
    expect(html).toContain(
      `<thead><tr>${cols.map((c) => `<th title="${escapeHtml(c.caption)}">${escapeHtml(c.header)}</th>`).join('')}</tr></thead>`,
    );
    const row = html.match(/<tr data-row="0"[^>]*>(.*?)<\/tr>/)![1];
    expect([...row.matchAll(/data-col="([^"]+)"/g)].map((m) => m[1])).toEqual(cols.map((c) => c.id));
  });

  test('junit.xml carries the junit columns as raw suite properties', () => {
    const xml = renderJunit(summary);
    const first = summary.commissions[0];
    for (const col of columnsOf('junit')) {
      expect(xml).toContain(`<property name="${col.header}" value="${String(col.value(first) ?? '')}"/>`);
    }
  });
});
