import { rmSync } from 'node:fs';
import path from 'node:path';
import { type BrokenPackage, commission, e, write } from './broken-package-kit.js';

/** Broken packages of the family sections (editing, optimization, tool-agent) and of case environments. */
export const BROKEN_FAMILIES: BrokenPackage[] = [
  {
    name: 'an editing commission without its editing section',
    base: 'todo-due-dates',
    break: commission((c) => {
      delete c.editing;
    }),
    expect: [e('commission.yaml', 'editing', /required when family is editing; add the editing: section/)],
  },
  {
    name: 'forbidden paths in brace syntax, and an absolute allowed path',
    base: 'todo-due-dates',
    break: commission((c) => {
      c.editing.forbiddenPaths = ['{tests,spec}/**'];
      c.editing.allowedPaths = ['/mdtodo/**'];
    }),
    expect: [
      e(
        'commission.yaml',
        'editing.forbiddenPaths.0',
        /braces are not glob syntax here \(only \*, \*\* and \?\); list each path/,
      ),
      e('commission.yaml', 'editing.allowedPaths.0', /is absolute; make it relative to the tree it matches/),
    ],
  },
  {
    name: 'a regression command placeholder typo',
    base: 'todo-due-dates',
    break: commission((c) => {
      c.editing.regression.command = 'cd {tre} && python3 -m unittest discover -s tests';
    }),
    expect: [
      e('commission.yaml', 'editing.regression.command', /unknown placeholder \{tre\} \(did you mean \{tree\}\?\)/),
    ],
  },
  {
    name: 'an optimization commission without its a0',
    base: 'ticket-routing',
    break: (dir) => rmSync(path.join(dir, 'starter'), { recursive: true }),
    expect: [e('starter', '', /missing: an optimization commission starts from starter\/; add it/)],
  },
  {
    name: 'a tool-agent domain that is not there',
    base: 'tool-agent',
    break: commission((c) => {
      c.toolAgent.domain = 'airlines';
    }),
    expect: [e('commission.yaml', 'toolAgent.domain', /airlines is not a directory; point it at a τ² domain/)],
  },
  {
    name: 'a service with a reserved name, a bad readiness probe and no image (every defect of it at once)',
    base: 'log-triage',
    break: commission((c) => {
      c.services = [{ name: 'localhost', command: 'sleep 100', ready: { http: 'health', port: 99999 } }];
    }),
    expect: [
      e('commission.yaml', 'services.0.name', /is reserved \(localhost, heldout\); use another name/),
      e('commission.yaml', 'services.0.ready.http', /must be a path starting with \//),
      e('commission.yaml', 'services.0.ready.port', /99999 is too large; use a number at most 65535/),
      e('commission.yaml', 'services.0.image', /give exactly one of image and build/),
    ],
  },
  {
    name: 'an image map with an empty key',
    base: 'log-triage',
    break: commission((c) => {
      c.images = { '': 'heldout/runtime:1' };
    }),
    expect: [e('commission.yaml', 'images', /the key "": is empty; write a value/)],
  },
  {
    name: "a misspelt field in a case's case.yaml",
    base: 'log-triage',
    break: (dir) => write(dir, 'cases/dev/dev-001/case.yaml', 'service:\n  - name: db\n    image: heldout/runtime:1\n'),
    expect: [e('cases/dev/dev-001/case.yaml', 'service', /unknown field; did you mean `services`\?/)],
  },
];
