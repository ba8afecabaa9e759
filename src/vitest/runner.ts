import type { File } from '@vitest/runner';
import { TestRunner } from 'vitest';
import { RunSession } from '../run/index.js';

/**
 * The heldout test runner: Vitest's own runner plus freeze verification before any file runs. Collection has
 * imported the generated commission suites by then, so every delivery they name is digested and held to its
 * freeze here; a refused delivery's cases then fail without starting a sandbox. Ordinary tests are untouched.
 */
export default class HeldoutRunner extends TestRunner {
  async onBeforeRunFiles(_files: File[]): Promise<void> {
    for (const session of RunSession.all()) {
      for (const { label, refusal } of await session.verifyDeliveries()) {
        if (refusal) console.error(`heldout: delivery "${label}" refused: ${refusal}`);
      }
    }
  }
}
