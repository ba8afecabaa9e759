import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTasks } from '../../../src/taste/index.js';
import { tau2Dir } from '../../domains/data.js';

// The whole generateTasks result at seed 0 (small sizes), as bench/taste-snapshot.mjs --small writes it, recorded
// before stage 3 was made fast (issue 24): speed-ups must not change a generated task. A deliberate change to what
// stage 1–3 generate updates these digests (run the script, check the diff of its JSON files, copy the digests).
const PINNED = {
  airline: '41a9e937e21f936d0a96432c72951cdd134f667d1174f7a71190543d378a21e4',
  retail: '8aa44f9ee95892bfba8d170bc417ae3f36cdc00af243c626b4f5d14711fc7a65',
  telecom: '53769f5d71d195e830bd419561844c0387ded8e68567938e2b891594d4db6d39',
} as const;

describe('taste generate, pinned output', () => {
  for (const name of ['airline', 'retail', 'telecom'] as const) {
    it(`${name}: seed 0 generates exactly the recorded tasks, entries and coverage`, async () => {
      const r = await generateTasks(path.join(tau2Dir, name), { seed: 0, attempts: 300, pool: 150, k: 12 });
      const digest = createHash('sha256')
        .update(JSON.stringify(r, null, 1))
        .digest('hex');
      expect(digest).toBe(PINNED[name]);
    });
  }
});
