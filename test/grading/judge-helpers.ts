import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { caseRef, execution, makeCommission, outputDir } from './helpers.js';

/** correctness 70 (a check worth 40, the judge 30), clarity 30 (the judge); outcome o1 judge-decided, caps clarity at 10. */
export const judgedCommission = () =>
  makeCommission(
    { artifacts: [{ path: 'answer.json', format: 'json' }] },
    {
      dimensions: [
        {
          id: 'correctness',
          title: 'Correctness',
          max: 70,
          items: [
            { check: 'json-equals', file: 'answer.json', path: 'capital', expected: { truth: 'capital' }, points: 40 },
            { judge: 'The explanation is factually right and supported by the input.', points: 30 },
          ],
        },
        {
          id: 'clarity',
          title: 'Clarity',
          max: 30,
          items: [{ judge: 'The answer is clear and well organised.', points: 30 }],
        },
      ],
      outcomes: [
        {
          id: 'o1',
          title: 'Answers the question asked',
          when: { judge: 'The answer addresses the question.' },
          caps: { clarity: 10 },
        },
      ],
    },
  );

export const verdict = (correctness: number, clarity: number, satisfied = true) => ({
  dimensions: {
    correctness: { score: correctness, max: 30, evidence: 'explanation cites the input' },
    clarity: { score: clarity, max: 30, evidence: 'short and structured' },
  },
  outcomes: [{ id: 'o1', satisfied, safety: null, evidence: satisfied ? 'answers it' : 'answers another question' }],
  major_errors: [],
  assessment: 'solid',
});

export const judgedCase = (
  files: Record<string, string> = { 'answer.json': '{"capital": "Paris", "why": "It is."}' },
) => ({
  commission: judgedCommission(),
  caseRef: caseRef({ capital: 'Paris' }, 'What is the capital of France? Explain.'),
  trial: 1,
  execution: execution(),
  outputDir: outputDir(files),
  cacheDir: null as string | null,
});

export const tmpDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));
