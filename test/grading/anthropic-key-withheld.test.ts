// The evaluator's Anthropic variables are heldout's own, as its OpenAI ones are (issue 32: a role's upstream may be
// Anthropic's): a Harbor env template never resolves them and a commission's service can never carry them.
import { expect, test } from 'vitest';
import { externalServiceSchema } from '../../src/commission/index.js';
import { resolveTemplates } from '../../src/grading/families/harbor/verdict.js';

test('ANTHROPIC_* is withheld from templates and refused as a service variable or credential', () => {
  const r = resolveTemplates(
    { K: `\${ANTHROPIC_API_KEY}`, U: `\${ANTHROPIC_BASE_URL:-none}` },
    { ANTHROPIC_API_KEY: 'sk-ant-real' },
  );
  expect(r.env).toEqual({ K: '', U: 'none' });
  expect(r.withheld).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']);
  const bad = { name: 'x', what: 'y', env: ['ANTHROPIC_BASE_URL'], credentials: ['ANTHROPIC_API_KEY'] };
  const s = externalServiceSchema.safeParse(bad);
  expect(s.success).toBe(false);
  expect(s.error?.issues.map((i) => i.path.join('.'))).toEqual(['env.0', 'credentials.0']);
});
