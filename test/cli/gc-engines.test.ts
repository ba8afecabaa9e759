/**
 * Issue 33: `heldout gc` sweeps every registered backend, and an engine that is not installed here (no podman
 * socket) has nothing to sweep: gc still exits 0, where it exits 2 for an engine that is there but does not answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { engineAnswers } from '../../src/sandbox/index.js';
import { heldout } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const docker = await engineAnswers(WAIT_MS);

describe.skipIf(!docker)(docker ? 'heldout gc and engines' : 'heldout gc — skipped: no docker engine answers', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-gc-engines-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('a host without podman: gc exits 0 and says nothing about podman', async () => {
    const env = { ...process.env, CONTAINER_HOST: `unix://${path.join(tmp, 'no-podman.sock')}` };
    const r = await heldout(['gc', '--run', 'no-such-run', '--json'], { env });
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/podman/);
    expect(JSON.parse(r.stdout)).toMatchObject({ containers: 0 });
  });

  test('a podman socket that is there but does not answer: exit 2, naming podman', async () => {
    // A listener that accepts and never answers, like a hung service.
    const sock = path.join(tmp, 'hung.sock');
    const server = net.createServer(() => {}).listen(sock);
    try {
      const env = { ...process.env, CONTAINER_HOST: `unix://${sock}` };
      const r = await heldout(['gc', '--run', 'no-such-run'], { env });
      expect(r.code, r.out).toBe(2);
      expect(r.out).toMatch(/^heldout gc: podman: no podman engine answers at unix:\/\/.*hung\.sock/m);
    } finally {
      server.close();
    }
  });
});
