import type { Item } from '../commission/index.js';
import { isCheck } from './grade-items.js';
import type { GradingContext, Phase } from './grading-context.js';
import { type JudgeVerdict, judgeCase, judgeConfigFromEnv, NO_JUDGE_REASON } from './judge.js';
import { artifactsDigest, canonical, DEFAULT_JUDGE_CACHE_DIR, digestOf, JudgeCache } from './judge-cache.js';
import { type JudgedDimension, PROMPT_VERSION } from './judge-prompt.js';

/**
 * The case's one judge call, when any item, outcome or ceiling waits for it: its verdict fills them in, and a
 * judge that cannot answer (or none configured) leaves the case unscored with the reason, never 0 or 100.
 */
export const askJudge: Phase = async (ctx) => {
  if (ctx.pendingJudge.length === 0 && ctx.judgedOutcomes.length === 0) return;
  const judged: JudgedDimension[] = ctx.input.commission.rubric.dimensions
    .map((d) => {
      const items = d.items.filter((i): i is Extract<Item, { judge: string }> => !isCheck(i));
      return {
        id: d.id,
        title: d.title,
        max: items.reduce((s, i) => s + i.points, 0),
        rubric: items.map((i) => i.judge),
      };
    })
    .filter((d) => d.rubric.length > 0);
  const verdict = await runJudge(ctx, judged);
  if (!verdict.ok) ctx.unscored = verdict.reason;
  else applyVerdict(ctx, judged, verdict.verdict);
};

function applyVerdict(ctx: GradingContext, judged: JudgedDimension[], v: JudgeVerdict): void {
  ctx.grade.judge = {
    model: v.model,
    assessment: v.assessment,
    majorErrors: v.majorErrors,
    ...(v.samples ? { samples: v.samples } : {}),
    cached: v.cached,
    ...(v.costUsd !== undefined ? { costUsd: v.costUsd } : {}),
  };
  for (const p of ctx.pendingJudge) {
    const jd = judged.find((d) => d.id === p.dim)!;
    const got = v.dimensions[p.dim]!;
    const whole = Math.floor(jd.max + 1e-9);
    p.item.score = whole > 0 ? got.score / whole : 0;
    p.item.earned = p.item.score * p.item.points;
    p.item.evidence = `${got.score}/${whole}: ${got.evidence}`;
  }
  for (const jo of ctx.judgedOutcomes) {
    const got = v.outcomes.find((x) => x.id === jo.id)!;
    if (jo.id.startsWith('ceiling:')) {
      ctx.ceilingHolds.set(jo.id.slice('ceiling:'.length), { holds: got.satisfied, evidence: got.evidence });
      continue;
    }
    const rec = ctx.outcomes.find((o) => o.id === jo.id)!;
    if (jo.satisfied) rec.satisfied = got.satisfied;
    if (jo.safety) rec.safety = got.safety;
    rec.evidence = [rec.evidence, `judge: ${got.evidence}`].filter(Boolean).join('; ');
  }
}

async function runJudge(
  ctx: GradingContext,
  dimensions: JudgedDimension[],
): Promise<{ ok: true; verdict: JudgeVerdict } | { ok: false; reason: string }> {
  const { input, facts } = ctx;
  const caseInput = ctx.checks!.input;
  const config = input.judge === undefined ? judgeConfigFromEnv() : input.judge;
  if (!config) return { ok: false, reason: NO_JUDGE_REASON };
  const cacheDir = input.cacheDir === undefined ? DEFAULT_JUDGE_CACHE_DIR : input.cacheDir;
  const cache =
    cacheDir === null
      ? undefined
      : {
          store: new JudgeCache(cacheDir),
          key: {
            rubricDigest: digestOf(
              canonical({
                prompt: PROMPT_VERSION,
                rubric: input.commission.rubric,
                input: caseInput,
                facts,
                reference: input.caseRef.truth?.judgeReference ?? null,
              }),
            ),
            caseId: `${input.commission.config.id}/${ctx.split}/${input.caseRef.id}`,
            artifactsDigest: artifactsDigest(input.outputDir),
            trial: input.trial,
          },
        };
  return judgeCase(
    config,
    {
      caseId: input.caseRef.id,
      input: caseInput,
      outputDir: input.outputDir,
      execution: input.execution,
      ledger: input.ledger,
      facts,
      dimensions,
      outcomes: ctx.judgedOutcomes,
      reference: input.caseRef.truth?.judgeReference ?? null,
    },
    { cache },
  );
}
