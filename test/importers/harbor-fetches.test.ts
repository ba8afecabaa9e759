import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { runtimeFetches } from '../../src/importers/harbor-fetches.js';
import { dataDir } from './helpers.js';

const canonical = `#!/bin/bash
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
source $HOME/.local/bin/env
uvx \\
  -p 3.13 --with pytest==8.4.1 \\
  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
`;

describe('what a task script fetches when it runs', () => {
  test("Harbor's canonical verifier: apt, the uv installer, PyPI", () => {
    expect(runtimeFetches(canonical)).toEqual([
      'apt-get install (Debian packages)',
      'a download from https://astral.sh/uv/0.9.7/install.sh',
      'uv/uvx resolving packages (PyPI)',
    ]);
    expect(runtimeFetches('uvx --python 3.12 --with pytest==8.3.3 pytest /tests/t.py')).toEqual([
      'uv/uvx resolving packages (PyPI)',
      'a uv-managed CPython download',
    ]);
  });

  test('a sidecar, loopback or a variable host is no internet fetch; comments and offline installs are none', () => {
    expect(runtimeFetches('curl -s http://api-server:5000/items > /app/items.json')).toEqual([]);
    expect(runtimeFetches('curl --noproxy "*" http://$domain\ncurl http://127.0.0.1:80/ http://localhost/')).toEqual(
      [],
    );
    expect(runtimeFetches('# curl https://example.com/x\npip install --no-index --find-links=/w pytest')).toEqual([]);
  });

  const valkey = path.join(dataDir, 'harbor/terminal-bench-2.1-tasks/valkey-script-debugger-uaf/tests/test.sh');
  test.skipIf(!existsSync(valkey))(
    'an offline grader (TB-2.1 valkey, set -uo pipefail, make, tcl) fetches nothing',
    () => {
      expect(runtimeFetches(readFileSync(valkey, 'utf8'))).toEqual([]);
    },
  );

  test('each kind is named once, whatever the script', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('apt-get install -y x', 'npm ci', 'git clone u', 'echo', ''), { maxLength: 12 }),
        (ls) => {
          const found = runtimeFetches(ls.join('\n'));
          expect(new Set(found).size).toBe(found.length);
          expect(found.length).toBeLessThanOrEqual(3);
        },
      ),
    );
  });
});
