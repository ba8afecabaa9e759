/**
 * A delivery as a run holds it: digested (and held to its freeze) before its first case, and checked again after
 * every case (DESIGN §6), with what changed named file by file.
 */
import {
  describeChanges,
  diffTrees,
  type FreezeManifest,
  FreezeMismatchError,
  readFreeze,
  scanTree,
  treeListing,
  verifyFreeze,
} from '../freeze/index.js';
import type { HeldoutLeak } from './heldout-leak.js';
import type { DeliveryRef } from './types.js';

/** A delivery prepared for a run. */
export interface Prepared {
  ref: DeliveryRef;
  /** Set when the delivery is refused (changed since its freeze, or during the run): every later case fails with it. */
  refusal: Error | null;
  devStrings: Map<string, string[]>;
  heldoutLeaks: Map<string, HeldoutLeak | null>;
  /** The freeze manifest's exclusions (it may sit inside the delivery); the re-digest after each case uses them. */
  exclude?: readonly string[];
  /** The per-file listing the tree is held to after each case (the freeze's, or the first scan's), to name changes. */
  baseline: Pick<FreezeManifest, 'files' | 'modes'>;
}

/** Digests a delivery and holds it to its freeze manifest, when it has one; a mismatch is kept as the refusal. */
export async function prepareDelivery(d: {
  label: string;
  dir: string;
  freeze: string | null;
  role: DeliveryRef['role'];
}): Promise<Prepared> {
  let refusal: Error | null = null;
  let digest: string;
  let frozen = false;
  let exclude: readonly string[] | undefined;
  let baseline: Prepared['baseline'];
  if (d.freeze) {
    const manifest = await readFreeze(d.freeze);
    exclude = manifest.exclude;
    baseline = manifest;
    try {
      digest = await verifyFreeze(d.dir, manifest);
      frozen = true;
    } catch (err) {
      if (!(err instanceof FreezeMismatchError)) throw err;
      refusal = err;
      digest = err.actual;
    }
  } else {
    const scan = await scanTree(d.dir);
    digest = scan.digest;
    baseline = treeListing(scan);
  }
  return {
    ref: { label: d.label, dir: d.dir, digest, frozen, role: d.role },
    refusal,
    devStrings: new Map(),
    heldoutLeaks: new Map(),
    exclude,
    baseline,
  };
}

/**
 * What changed in the delivery since it was prepared, as its refusal says it (null when nothing did). The first
 * change found is kept as the delivery's refusal, so its later cases are refused without running.
 */
export async function changedSince(prepared: Prepared, caseId: string): Promise<string | null> {
  const after = await scanTree(prepared.ref.dir, { exclude: prepared.exclude });
  if (after.digest === prepared.ref.digest) return null;
  const what = describeChanges(diffTrees(after, prepared.baseline)) || `digest ${after.digest}`;
  const refused = `delivery ${prepared.ref.dir} changed during the run (found after case ${caseId}): ${what}`;
  if (!prepared.refusal) console.error(`heldout: delivery "${prepared.ref.label}" refused: ${refused}`);
  prepared.refusal ??= new Error(refused);
  return refused;
}
