import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { proseBudgets, readBudgetSentence } from '../../src/importers/index.js';

/** Each budget sentence, verbatim from the AgentSWE tasks' 04 documents (commit 0cc60038), and what it states. */
const VERBATIM: [string, Record<string, number>][] = [
  ['- Per case: 600 seconds wall time and 4 GiB peak memory.', { wallSeconds: 600, memoryMb: 4096 }],
  ['- GATEWAY: at most 300 requests total, including failed attempts and retries.', { modelCalls: 300 }],
  ['- GATEWAY: at most 300 total requests per case, including retries.', { modelCalls: 300 }],
  ['- GATEWAY calls: at most 300 per case.', { modelCalls: 300 }],
  ['- GATEWAY requests: at most 300 per case.', { modelCalls: 300 }],
  ['- GATEWAY LLM requests: at most 300 per case.', { modelCalls: 300 }],
  ['- GATEWAY maximum: 300 requests per case.', { modelCalls: 300 }],
  [
    '- cap: at most 300 total GATEWAY requests per case, including retries; at most 100 may contain images and are included in the total',
    { modelCalls: 300 },
  ],
  ['A case allows at most 300 GATEWAY requests, at most 100 containing images.', { modelCalls: 300 }],
  [
    'Per case: 600 seconds wall time, 4 GiB RAM, at most 300 combined text/image model requests, and at most 100 image-bearing requests.',
    { wallSeconds: 600, memoryMb: 4096, modelCalls: 300 },
  ],
  [
    'Each run is limited to 600 seconds, 4 GiB peak memory, 300 GATEWAY calls, and 100 image-bearing GATEWAY calls.',
    { wallSeconds: 600, memoryMb: 4096, modelCalls: 300 },
  ],
  [
    'Per-case budget: 600 seconds, 4 GiB, 300 model requests, at most 100 image-bearing.',
    { wallSeconds: 600, memoryMb: 4096, modelCalls: 300 },
  ],
  ['At most 180 text calls and 20 image-bearing calls may be made per case', { modelCalls: 200 }],
  ['The case envelope is 600 seconds wall time and 4 GiB address space.', { wallSeconds: 600, memoryMb: 4096 }],
  [
    'Budget per row: at most 20 model calls, 600 seconds, and 200,000 model tokens.',
    { modelCalls: 20, wallSeconds: 600, modelTokens: 200_000 },
  ],
  [
    'Budget: 25 turns, 4 tool calls per turn, 900 seconds, and 150k tokens per row.',
    { wallSeconds: 900, modelTokens: 150_000 },
  ],
  ['per-row budgets are 20 model calls, 20 searches, and 20 visits.', { modelCalls: 20 }],
  [
    'Per row budget is 900 seconds, at most 20 model calls/turns and 200,000 broker-counted tokens.',
    { wallSeconds: 900, modelCalls: 20, modelTokens: 200_000 },
  ],
  [
    'Each case is limited to 30 GUI actions, 30 model calls, 100,000 model tokens, and 900 seconds of agent execution after VM boot and official task setup.',
    { modelCalls: 30, modelTokens: 100_000, wallSeconds: 900 },
  ],
  [
    '- Per-case default budget: 12 model calls and 240,000 total tokens. Both limits are counted per case.',
    { modelCalls: 12, modelTokens: 240_000 },
  ],
  ['- Each case has 600 seconds and 4096 MiB of process-tree resident memory.', { wallSeconds: 600, memoryMb: 4096 }],
  ['A real process-tree PSS cap of `8589934592` bytes (8 GiB)', { memoryMb: 8192 }],
  ['- Wall-clock limit: 600 seconds per case, including translation and validation.', { wallSeconds: 600 }],
  ['- Memory limit: 4 GiB per case.', { memoryMb: 4096 }],
];

describe('budgets from any phrasing the 25 AgentSWE tasks use', () => {
  test('every verbatim budget sentence gives its numbers', () => {
    for (const [sentence, want] of VERBATIM) {
      const got = Object.fromEntries(
        readBudgetSentence(sentence.replace(/^- /, '')).readings.map((r) => [r.field, r.value]),
      );
      expect(got, sentence).toEqual(want);
    }
  });

  test('image-bearing limits are sub-limits, builder-only budgets are not case budgets, unreadable ones are named', () => {
    const p = proseBudgets(
      [
        '- GATEWAY calls: at most 300 per case.',
        '- GATEWAY calls containing `input_image`: at most 100 per case and included in the combined 300.',
        '- Per builder run, the maximum optional assistance budget is 30 GATEWAY calls, 20 Serper calls, and 20 ordinary web retrieval calls.',
        '- The harness enforces a budget of one reset per hour.',
      ].join('\n'),
    );
    expect(p.readings.map((r) => [r.field, r.value])).toEqual([['modelCalls', 300]]);
    expect(p.subLimits).toEqual(['GATEWAY calls containing `input_image`: at most 100 per case']);
    expect(p.unread).toEqual([]);
    const q = proseBudgets('- Each case has a budget of 3 resets and at most 12 tool invocations.');
    expect(q.readings).toEqual([]);
  });

  test.prop([
    fc.integer({ min: 1, max: 9999 }),
    fc.constantFrom('calls', 'requests'),
    fc.constantFrom('GATEWAY', 'model', 'LLM'),
  ])('a stated call limit is read as stated, never a digit of a model name or an encoding', (n, unit, provider) => {
    const s = `The broker overwrites every request to \`model=gpt-5.6-sol\` (base64 images allowed); ${provider} ${unit}: at most ${n} per case.`;
    expect(
      readBudgetSentence(s)
        .readings.filter((r) => r.field === 'modelCalls')
        .map((r) => r.value),
    ).toEqual([n]);
  });
});
