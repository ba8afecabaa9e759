import type { ZodError, z } from 'zod';
import { closest } from '../util/index.js';
import { commissionSchema, rubricSchema } from './schema.js';
import { fieldNames } from './schema-fields.js';

/**
 * zod issues as `file: field: problem` lines a package author can act on: each names the field, says what was
 * found and what to write instead. A union (a rubric item, a condition, an expectation) is resolved to the member
 * the author meant, so an unknown check kind reads "unknown check kind "x"; use one of: …" rather than zod's
 * "Invalid input".
 */

type Issue = z.core.$ZodIssue;
type Key = PropertyKey;
type Line = { file: string; path: string; message: string };

let vocabulary: string[] | undefined;
const knownFields = () => (vocabulary ??= fieldNames(commissionSchema as never, rubricSchema as never));

/** Every issue of `error` as a problem of `file`; `raw` is the value that was parsed (to quote what was found). */
export function zodProblems(error: ZodError, file: string, prefix: Key[] = [], raw?: unknown): Line[] {
  const lines = error.issues.flatMap((issue) => issueLines(issue, [], raw));
  const seen = new Set<string>();
  return lines
    .map((l) => ({ file, path: [...prefix, ...l.at].map(String).join('.'), message: l.message }))
    .filter((l) => {
      const key = `${l.path}\0${l.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

interface At {
  at: Key[];
  message: string;
}

function valueAt(raw: unknown, at: Key[]): unknown {
  let cur = raw;
  for (const k of at) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<Key, unknown>)[k];
  }
  return cur;
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

function unknownField(key: string): string {
  const hint = closest(key, knownFields());
  return hint
    ? `unknown field; did you mean \`${hint}\`?`
    : 'unknown field; remove it (docs/commission.md lists the fields)';
}

function issueLines(issue: Issue, base: Key[], raw: unknown): At[] {
  const at = [...base, ...issue.path];
  switch (issue.code) {
    case 'unrecognized_keys':
      // zod reports unknown keys on the parent object; name each key itself, as a reader looks for the field.
      return issue.keys.map((key) => ({ at: [...at, key], message: unknownField(key) }));
    case 'invalid_union':
      return unionLines(issue, at, raw);
    case 'invalid_value': {
      const options = issue.values.map(String);
      const got = valueAt(raw, at);
      const hint = typeof got === 'string' ? closest(got, options) : undefined;
      return [
        {
          at,
          message: `${show(got)} is not allowed; use one of: ${options.join(', ')}${hint ? ` (did you mean ${hint}?)` : ''}`,
        },
      ];
    }
    case 'invalid_type': {
      const got = valueAt(raw, at);
      if (got === undefined) return [{ at, message: `missing; add it (${issue.expected})` }];
      return [{ at, message: `expected ${issue.expected}, found ${show(got)}` }];
    }
    case 'too_big':
    case 'too_small':
      return [{ at, message: boundMessage(issue, valueAt(raw, at)) }];
    case 'invalid_key': {
      // A record's key (an image map's `from`, say) broke its rule: say which key, and what the rule is.
      const key = at[at.length - 1];
      const inner = issue.issues.flatMap((i) => issueLines(i as Issue, [], key)).map((l) => l.message);
      return [{ at: at.slice(0, -1), message: `the key ${show(key)}: ${inner.join('; ') || issue.message}` }];
    }
    default:
      return [{ at, message: issue.message }];
  }
}

/** A number, string or list out of its bounds, said with the bound to write instead of zod's "Too big". */
function boundMessage(issue: Extract<Issue, { code: 'too_big' | 'too_small' }>, got: unknown): string {
  const big = issue.code === 'too_big';
  const bound = Number(big ? (issue as { maximum: unknown }).maximum : (issue as { minimum: unknown }).minimum);
  const inclusive = issue.inclusive !== false;
  if (issue.origin === 'string') {
    if (!big && bound === 1) return 'is empty; write a value';
    return `${show(got)} is too ${big ? 'long' : 'short'}; use ${big ? 'at most' : 'at least'} ${bound} characters`;
  }
  if (issue.origin === 'array' || issue.origin === 'set')
    return big ? `has too many items; keep at most ${bound}` : `needs at least ${bound} item(s); add them`;
  const limit = big ? (inclusive ? 'at most' : 'below') : inclusive ? 'at least' : 'above';
  return `${show(got)} is too ${big ? 'large' : 'small'}; use a number ${limit} ${bound}`;
}

/** What one member of a union made of the value: fields it missed, fields it did not know, and other problems. */
interface Fit {
  issues: Issue[];
  missing: string[];
  unknown: string[];
  discriminator: { key: string; options: string[] } | null;
  cost: number;
}

function fitOf(issues: Issue[], value: unknown): Fit {
  const missing: string[] = [];
  const unknown: string[] = [];
  let discriminator: Fit['discriminator'] = null;
  let other = 0;
  for (const i of issues) {
    if (i.code === 'unrecognized_keys' && i.path.length === 0) unknown.push(...i.keys);
    else if (i.code === 'invalid_type' && i.path.length === 1 && valueAt(value, i.path) === undefined)
      missing.push(String(i.path[0]));
    else if (i.code === 'invalid_union' && 'discriminator' in i && typeof i.discriminator === 'string')
      discriminator = { key: i.discriminator, options: ((i as { options?: unknown[] }).options ?? []).map(String) };
    else other++;
  }
  // A member keyed by a discriminator the value does not even have is a worse fit than one that merely misses a field.
  const cost = (missing.length + unknown.length) * 10 + (discriminator ? 15 : 0) + other;
  return { issues, missing, unknown, discriminator, cost };
}

function unionLines(issue: Extract<Issue, { code: 'invalid_union' }>, at: Key[], raw: unknown): At[] {
  const value = valueAt(raw, at);
  // A discriminated union reports its key (the issue's path ends with it) and options: a value it does not know is
  // a typo or a kind that does not exist.
  if ('discriminator' in issue && typeof issue.discriminator === 'string') {
    const options = ((issue as { options?: unknown[] }).options ?? []).map(String);
    const hint = typeof value === 'string' ? closest(value, options) : undefined;
    const message =
      value === undefined
        ? `missing; add one of: ${options.join(', ')}`
        : `unknown ${issue.discriminator} kind ${show(value)}; use one of: ${options.join(', ')}${hint ? ` (did you mean ${hint}?)` : ''}`;
    return [{ at, message }];
  }
  if (value === undefined) return [{ at, message: 'missing; add it' }];
  const fits = issue.errors.map((e) => fitOf(e, value));
  if (fits.length === 0) return [{ at, message: issue.message }];
  const best = Math.min(...fits.map((f) => f.cost));
  const winners = fits.filter((f) => f.cost === best);
  if (winners.length === 1) {
    const lines = winners[0]!.issues.flatMap((i) => issueLines(i, at, raw));
    // The value has neither a discriminator nor all of another member's fields: say both ways to fix it.
    const keyed = fits.find((f) => f.discriminator)?.discriminator;
    if (keyed && !winners[0]!.discriminator && winners[0]!.missing.length > 0)
      lines.push({
        at: [...at, keyed.key],
        message: `or, for the other kind of item, add ${keyed.key}: one of ${keyed.options.join(', ')}`,
      });
    return lines;
  }
  // No member fits better than another: say which forms are allowed, and which fields none of them knows.
  const forms = winners.map((f) =>
    f.discriminator
      ? `{ ${f.discriminator.key}: ${f.discriminator.options.join(' | ')}, … }`
      : `{ ${[...f.missing, ...Object.keys((value as object) ?? {}).filter((k) => !f.unknown.includes(k))].join(', ') || '…'} }`,
  );
  const unknownEverywhere = winners
    .map((f) => f.unknown)
    .reduce((a, b) => a.filter((k) => b.includes(k)))
    .map((key) => ({ at: [...at, key], message: unknownField(key) }));
  return [
    { at, message: `matches none of the allowed forms: ${forms.join(' or ')}; write one of them` },
    ...unknownEverywhere,
  ];
}
