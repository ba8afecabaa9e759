import { type BootstrapOptions, bootstrapCI } from './bootstrap.js';
import { signTest, winLossTie } from './sign-test.js';
import { mean } from './stats.js';

/** The paired comparison of two sets of scores on the same instances: B − A per instance. */
export interface PairedDifference {
  /** Instances compared. */
  n: number;
  /** Instances where B scored above A, below it, and equal to it (|Δ| ≤ 1e-9). */
  wins: number;
  losses: number;
  ties: number;
  /** Mean of B − A over the instances; null when there are none. */
  meanDiff: number | null;
  /** Percentile-bootstrap CI of the mean difference, resampling instances (so each keeps its pair). */
  ci95: [number, number] | null;
  /** Two-sided sign test on wins and losses, ties dropped (DESIGN §5). */
  signTestP: number;
  /** `worse` / `better` when the CI lies wholly below / above 0, else `no-difference`. */
  verdict: 'better' | 'worse' | 'no-difference';
}

/**
 * Compares B with A instance by instance (Efron & Tibshirani's paired bootstrap: the differences are resampled, not
 * the two sides apart). Pure and seeded: the same pairs and options give the same answer. With no pairs every
 * figure is empty and the verdict `no-difference`: nothing was shown to differ.
 */
export function pairedDifference(
  pairs: ReadonlyArray<{ a: number; b: number }>,
  options: BootstrapOptions,
): PairedDifference {
  const diffs = pairs.map((p) => p.b - p.a);
  const { wins, losses, ties } = winLossTie(pairs.map((p) => ({ candidate: p.b, starter: p.a })));
  const ci95 = bootstrapCI(diffs, options);
  return {
    n: pairs.length,
    wins,
    losses,
    ties,
    meanDiff: mean(diffs),
    ci95,
    signTestP: signTest(wins, losses),
    verdict: ci95 === null ? 'no-difference' : ci95[1] < 0 ? 'worse' : ci95[0] > 0 ? 'better' : 'no-difference',
  };
}
