import { resolve } from 'node:path';
import { loadCommission } from '../../commission/index.js';
import {
  defaultEnvironment,
  FREEZE_POLICIES,
  type FreezeManifest,
  type FreezePolicy,
  writeFreeze,
} from '../../freeze/index.js';
import { engineAnswers, imageId, RUNTIME_IMAGE } from '../../sandbox/index.js';
import { defineCommand, UsageError } from '../command.js';
import { requireDirectory } from '../errors.js';
import { declareOptions, optionalNumber, stringOption } from '../options.js';

export default defineCommand({
  name: 'freeze',
  summary: 'record a delivery’s content digest and environment in freeze.json',
  help: `Usage: heldout freeze <delivery> [--policy final|last-accepted|best-dev] [--round n] [--image name] [--out freeze.json]

Writes the freeze manifest (DESIGN §6): the delivery's tree digest (sha256 over sorted relative paths, modes,
sizes, bytes and symlink targets; .git left out), a per-file listing (so a later mismatch names the changed
files), the environment digest (node version, platform, and the sandbox image's id when an engine answers),
the policy and the development round. The held-out run refuses a delivery that no longer matches.

Options:
  --policy p     final (default), last-accepted or best-dev (ties on best-dev: the earliest round)
  --commission d the commission whose round ledger (.heldout/rounds/<id>.json) picks the round by --policy
  --ledger file  the round ledger to pick the round from (instead of --commission)
  --round n      without a ledger: the development round the frozen digest comes from (recorded as given)
  --image name   the sandbox image whose id enters the environment digest (default ${RUNTIME_IMAGE})
  --no-image     leave the image out of the environment (no engine is asked)
  --out path     where to write (default <delivery>.freeze.json beside it, which \`heldout run\` and the plugin
                 pick up by themselves); inside the delivery it is left out of the digest
  --json         print the manifest as JSON

With a ledger, the round is chosen by the policy (final: the last round; last-accepted: the last round whose dev
cases all passed; best-dev: the highest dev mean, ties to the earliest round) and the delivery on disk must be
that round's tree (else: restore it; the message names both digests).

Exit: 0 written, 2 usage error.`,
  options: declareOptions({
    string: ['policy', 'round', 'commission', 'ledger', 'image', 'out'],
    boolean: ['no-image', 'json'],
  }),
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('freeze: name exactly one delivery directory');
    requireDirectory(positionals[0]!, 'freeze:', 'name the delivery directory to freeze');
    const policy = stringOption(values, 'policy') ?? 'final';
    if (!(FREEZE_POLICIES as readonly string[]).includes(policy)) {
      throw new UsageError(`--policy: expected one of ${FREEZE_POLICIES.join(', ')}, got ${policy}`);
    }
    const round = optionalNumber(values, 'round') ?? null;
    if (round !== null && !Number.isInteger(round)) throw new UsageError('--round: expected an integer');
    const out = resolve(stringOption(values, 'out') ?? `${positionals[0].replace(/\/+$/, '')}.freeze.json`);
    const environment = defaultEnvironment();
    if (!values['no-image']) {
      const image = stringOption(values, 'image') ?? RUNTIME_IMAGE;
      environment.image = image;
      environment.imageId = (await engineAnswers(2000)) ? await imageId(image) : null;
    }
    let ledgerPath = stringOption(values, 'ledger');
    const commission = stringOption(values, 'commission');
    if (commission && ledgerPath) throw new UsageError('freeze: give --commission or --ledger, not both');
    // The commission is checked before the dev loop (and Vitest with it) loads.
    const id = commission ? (await loadCommission(commission, { checkModules: true })).config.id : null;
    const { defaultLedgerPath, freezeFromLedger, NoQualifyingRoundError, RoundDigestMismatchError } = await import(
      '../../devloop/index.js'
    );
    if (id) ledgerPath = defaultLedgerPath(id);
    let m: FreezeManifest;
    if (ledgerPath) {
      if (round !== null) throw new UsageError('freeze: --round is chosen by the policy when a ledger is given');
      try {
        const r = await freezeFromLedger({
          deliveryDir: positionals[0],
          ledgerPath,
          policy: policy as FreezePolicy,
          out,
          environment,
        });
        m = r.manifest;
      } catch (err) {
        if (err instanceof NoQualifyingRoundError || err instanceof RoundDigestMismatchError)
          throw new UsageError(err.message);
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          throw new UsageError(`freeze: no round ledger at ${ledgerPath}`);
        throw new UsageError((err as Error).message);
      }
    } else {
      m = await writeFreeze({ deliveryDir: positionals[0], policy: policy as FreezePolicy, round, out, environment });
    }
    if (values.json) console.log(JSON.stringify(m, null, 2));
    else
      console.log(
        `froze ${positionals[0]}: ${m.digest} (${Object.keys(m.files).length} files, policy ${m.policy}${m.round === null ? '' : `, round ${m.round}`}) → ${out}`,
      );
    return 0;
  },
});
