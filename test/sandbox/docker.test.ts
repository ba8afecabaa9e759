/**
 * Issue 3 acceptance against the real docker engine. Needs an engine (`.ci/run` starts dockerd); without one the
 * whole file is skipped and says so.
 */
import { beforeAll, describe, expect } from 'vitest';
import { dockerBackend, engineAnswers, ensureRuntimeImage, RUNTIME_IMAGE } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { containerBehaviours, dockerPs, sandboxBehaviours } from './behaviours.js';
import { containerDefaults } from './container-defaults.js';

const engine = await engineAnswers(WAIT_MS);

describe.skipIf(!engine)(engine ? 'docker sandbox' : 'docker sandbox — skipped: no docker engine answers', () => {
  beforeAll(async () => {
    const img = await ensureRuntimeImage();
    expect(img.tag).toBe(RUNTIME_IMAGE);
  });

  sandboxBehaviours(containerBehaviours(() => dockerBackend));

  containerDefaults('docker', () => dockerBackend, dockerPs);
});
