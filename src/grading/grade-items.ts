import type { CheckItem, Item } from '../commission/index.js';
import { checkContext, FULL, type Phase, runItemCheck } from './grading-context.js';
import type { ItemResult, OutcomeResult } from './types.js';

/** Scores every deterministic item now; judge items wait, unscored, for the case's one judge call. */
export const scoreItems: Phase = async (ctx) => {
  ctx.checks = checkContext(ctx);
  for (const d of ctx.input.commission.rubric.dimensions) {
    const dim = ctx.grade.dimensions[d.id]!;
    for (const item of d.items) {
      if (isCheck(item)) {
        const r = await runItemCheck(ctx, item);
        const res: ItemResult = {
          kind: item.check,
          title: itemTitle(item),
          points: item.points,
          score: r.score,
          earned: r.score * item.points,
          evidence: r.evidence,
        };
        dim.items.push(res);
        ctx.facts.push({ title: `${d.id}: ${res.title}`, score: r.score, evidence: r.evidence });
      } else {
        const res: ItemResult = {
          kind: 'judge',
          title: item.title ?? item.judge.slice(0, 80),
          points: item.points,
          score: null,
          earned: null,
          evidence: '',
        };
        dim.items.push(res);
        ctx.pendingJudge.push({ dim: d.id, item: res });
      }
    }
  }
};

/** Decides each numbered outcome (and its safety condition) a check can decide; the rest go to the judge. */
export const checkOutcomes: Phase = async (ctx) => {
  for (const o of ctx.input.commission.rubric.outcomes) {
    const rec: OutcomeResult = { id: o.id, satisfied: null, safety: null, evidence: '' };
    const judged: (typeof ctx.judgedOutcomes)[number] = { id: o.id, title: o.title };
    const ev: string[] = [];
    if ('check' in o.when) {
      const r = await runItemCheck(ctx, o.when);
      rec.satisfied = r.score >= FULL;
      ev.push(r.evidence);
    } else judged.satisfied = o.when.judge;
    if (o.safety) {
      if ('check' in o.safety.when) {
        const r = await runItemCheck(ctx, o.safety.when);
        rec.safety = r.score >= FULL;
        ev.push(`safety: ${r.evidence}`);
      } else judged.safety = o.safety.when.judge;
    }
    rec.evidence = ev.join('; ');
    ctx.outcomes.push(rec);
    if (judged.satisfied || judged.safety) ctx.judgedOutcomes.push(judged);
  }
};

/** Decides each total ceiling's `unless` condition a check can decide; the rest go to the judge. */
export const checkCeilings: Phase = async (ctx) => {
  for (const c of ctx.input.commission.rubric.ceilings) {
    if ('check' in c.unless) {
      const r = await runItemCheck(ctx, c.unless);
      ctx.ceilingHolds.set(c.id, { holds: r.score >= FULL, evidence: r.evidence });
    } else {
      ctx.ceilingHolds.set(c.id, { holds: null, evidence: '' });
      ctx.judgedOutcomes.push({ id: `ceiling:${c.id}`, title: c.reason, satisfied: c.unless.judge });
    }
  }
};

/** A rubric item decided by a deterministic check (the others are the judge's). */
export function isCheck(item: Item): item is CheckItem {
  return 'check' in item;
}

function itemTitle(item: CheckItem): string {
  if (item.title) return item.title;
  switch (item.check) {
    case 'command':
      return `\`${item.run}\``;
    case 'function':
      return `checks/${item.module}`;
    case 'exists':
    case 'regex':
    case 'schema':
      return `${item.check} ${item.file}`;
    case 'reward':
      return `reward ${item.file}${item.key ? `:${item.key}` : ''}`;
    default:
      return `${item.check} ${item.file}${item.path ? `:${item.path}` : ''}`;
  }
}
