/**
 * The deterministic check kinds by name (as reporters, backends and importers are registered). A kind is its file
 * here plus one entry; the entry must be keyed by a name in the commission schema's `check` union, and every name
 * there must have one: the `satisfies` below refuses to compile otherwise (docs/extending.md).
 */
import { commandCheck } from './command.js';
import {
  type CheckContext,
  type CheckItemOf,
  type CheckKind,
  type CheckResult,
  CheckSetupError,
  OutputError,
  type SchemaCheckKind,
} from './context.js';
import { existsCheck } from './exists.js';
import { functionCheck } from './function.js';
import { jsonContainsCheck } from './json-contains.js';
import { jsonEqualsCheck } from './json-equals.js';
import { numberCheck } from './number.js';
import { regexCheck } from './regex.js';
import { rewardCheck } from './reward.js';
import { schemaCheck } from './schema.js';

/** What the table must be: one kind for every name in the schema's `check` union, and no other. */
export type CheckKindTable = { [K in SchemaCheckKind]: CheckKind<CheckItemOf<K>> };

/** Every check kind, keyed by its `check` name, in the order the commission schema lists them. */
export const CHECK_KINDS = {
  exists: existsCheck,
  'json-equals': jsonEqualsCheck,
  'json-contains': jsonContainsCheck,
  regex: regexCheck,
  number: numberCheck,
  schema: schemaCheck,
  reward: rewardCheck,
  command: commandCheck,
  function: functionCheck,
} as const satisfies CheckKindTable;

/** A registered check kind's name, derived from the table's keys. */
export type CheckKindName = keyof typeof CHECK_KINDS;

/** A table of kinds to dispatch through: `CHECK_KINDS`, or (in a test) it with a kind of the test's own added. */
export type CheckRegistry = Readonly<Record<string, CheckKind<{ check: string }>>>;

/** The registered names, in the table's order. */
export const checkKindNames = (kinds: CheckRegistry = CHECK_KINDS): string[] => Object.keys(kinds);

/** The kind called `name`; an unknown name is the evaluator's setup fault, told the known ones. */
export function checkKindFor(name: string, kinds: CheckRegistry = CHECK_KINDS): CheckKind<{ check: string }> {
  if (!Object.hasOwn(kinds, name))
    throw new CheckSetupError(`unknown check kind ${JSON.stringify(name)}; known: ${checkKindNames(kinds).join(', ')}`);
  return kinds[name]!;
}

/**
 * Runs one deterministic check item against a case's outputs through the kind its `check` names. Resolves to a
 * score in [0, 1] with evidence; a missing or unreadable output scores 0. Rejects with `CheckSetupError` only for
 * faults of the evaluator's setup (an unknown kind among them).
 */
export async function runCheck<I extends { check: string }>(
  item: I,
  ctx: CheckContext,
  kinds: CheckRegistry = CHECK_KINDS,
): Promise<CheckResult> {
  const kind = checkKindFor(item.check, kinds);
  try {
    return await kind.run(item, ctx);
  } catch (err) {
    if (err instanceof OutputError) return { score: 0, evidence: err.message };
    throw err;
  }
}
