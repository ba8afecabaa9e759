/** `heldout freeze --policy …` backed by the round ledger: freeze exactly the tree of the round the policy picks. */
import { rm } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { DEFAULT_EXCLUDE, type FreezeManifest, treeDigest, writeFreeze } from '../freeze/index.js';
import { readLedger } from './ledger-file.js';
import { selectFrozenRound } from './policy.js';
import type { FreezePolicy, Round } from './types.js';

/** The delivery on disk is not the tree of the round the policy chose. */
export class RoundDigestMismatchError extends Error {
  constructor(
    message: string,
    readonly expected: string,
    readonly actual: string,
    readonly round: number,
  ) {
    super(message);
    this.name = 'RoundDigestMismatchError';
  }
}

export interface FreezeFromLedgerOptions {
  deliveryDir: string;
  ledgerPath: string;
  policy: FreezePolicy;
  /** Where to write freeze.json (omitted: computed and returned, not written). */
  out?: string;
  /** Environment facts for the freeze (default: the freeze part's default). */
  environment?: Record<string, string | null>;
  now?: Date;
}

/**
 * Picks the round under `policy` (selectFrozenRound), checks that the delivery's current digest is that round's
 * digest, and writes freeze.json with the policy and round number. Throws NoQualifyingRoundError when no round
 * qualifies and RoundDigestMismatchError (naming both digests) when the tree on disk is another one.
 */
export async function freezeFromLedger(
  options: FreezeFromLedgerOptions,
): Promise<{ manifest: FreezeManifest; round: Round }> {
  const ledger = await readLedger(options.ledgerPath);
  const round = selectFrozenRound(ledger, options.policy);
  const deliveryDir = resolve(options.deliveryDir);
  // The same exclusion writeFreeze applies, so a freeze.json written inside the delivery cannot cause a mismatch.
  const exclude = [...DEFAULT_EXCLUDE];
  if (options.out) {
    const rel = relative(deliveryDir, resolve(options.out));
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) exclude.push(rel.split(sep).join('/'));
  }
  const current = await treeDigest(deliveryDir, { exclude });
  if (current !== round.digest) {
    throw new RoundDigestMismatchError(
      `--policy ${options.policy} chose round ${round.round} of ${ledger.commission} (digest ${round.digest}), ` +
        `but ${deliveryDir} now has digest ${current}. Restore the tree of round ${round.round} ` +
        `(submitted ${round.at}) and freeze again.`,
      round.digest,
      current,
      round.round,
    );
  }
  const manifest = await writeFreeze({
    deliveryDir,
    policy: options.policy,
    round: round.round,
    out: options.out,
    environment: options.environment,
    now: options.now,
  });
  if (manifest.digest !== round.digest) {
    if (options.out) await rm(options.out, { force: true });
    throw new RoundDigestMismatchError(
      `${deliveryDir} changed while it was being frozen (round ${round.round} digest ${round.digest}, frozen ${manifest.digest})`,
      round.digest,
      manifest.digest,
      round.round,
    );
  }
  return { manifest, round };
}
