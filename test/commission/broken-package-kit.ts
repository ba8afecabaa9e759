import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';

/**
 * What a row of the broken-package table is, and the edits rows break a valid base with. A row is a valid base
 * with defects a package author makes, and the problems `heldout validate` must report for it: the file, the
 * field, and a message that says how to fix it. Packages with more than one defect (in more than one file or
 * layer) must have all of them in one report.
 */

export type Base = 'log-triage' | 'todo-due-dates' | 'ticket-routing' | 'tool-agent';
export interface Expected {
  file: string;
  field: string | RegExp;
  message: RegExp;
}
export interface BrokenPackage {
  name: string;
  base: Base;
  break(dir: string): void;
  expect: Expected[];
}

export const read = (dir: string, f: string) => readFileSync(path.join(dir, f), 'utf8');
export const write = (dir: string, f: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
  writeFileSync(path.join(dir, f), text);
};
/** Edits a YAML document as data (comments are lost, which no check depends on). */
export function yaml(dir: string, f: string, edit: (doc: any) => void): void {
  const doc = parse(read(dir, f));
  edit(doc);
  write(dir, f, stringify(doc));
}
export const rubric = (edit: (r: any) => void) => (dir: string) => yaml(dir, 'rubric.yaml', edit);
export const commission = (edit: (c: any) => void) => (dir: string) => yaml(dir, 'commission.yaml', edit);
export const item = (d: number, i: number, patch: (it: any) => any) =>
  rubric((r) => {
    r.dimensions[d].items[i] = patch(r.dimensions[d].items[i]);
  });
export const e = (file: string, field: string | RegExp, message: RegExp): Expected => ({ file, field, message });
