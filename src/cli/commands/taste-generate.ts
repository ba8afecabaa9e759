import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generateTasks, generatorModel, parseMethod, parseSeed, writeJson } from '../../taste/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions, integerOption, optionalInteger, requiredString, stringOption } from '../options.js';

export default defineCommand({
  name: 'taste generate',
  summary: 'TASTE stage 3: instantiate medoid sequences into verified, evolved τ² tasks',
  help: `Usage: heldout taste generate --domain <dir> [--out dir] [--k K] [--seed s] [--attempts 3000] [--pool 2000]
       [--method alternate|fasterpam] [--json]

Runs stage 1 (rule validator, trained sampler) and stage 2 (clustering) on the τ² domain directory, then, for each
usable cluster's medoid: programmatic instantiation against the domain database (entities and arguments chosen so
every gold call executes and its preconditions hold), the validation pipeline (arguments, entities, schema,
execution, policy, measures: a do-nothing agent must not pass it, verifier), and difficulty evolution (decoy records proven not to change the gold final state).
With a generator model (HELDOUT_GENERATOR_BASE_URL / _API_KEY / _MODEL, or OPENAI_*) the scenario is written by the
model, the evolution adds an adversarial instruction rewrite and the verifier is the hinted model agent; without one
everything runs offline with the scripted verifier (gold path, scripted user, reward 1). --method picks stage 2's
k-medoids algorithm (see taste cluster --help).

Writes <out>/tasks.json (τ² tasks schema) and <out>/report.json (default out: .heldout/taste/<domain>/generated).
The report compares coverage with the domain's original gold set (mean pairwise WED, trigram TTR, entropy; goals:
×2, ×2, +30 %).
--json prints { domain, seed, k, method, medoids, generated, out, coverage, entries }.
Exit: 0 done, 2 usage error.`,
  options: declareOptions({
    string: ['domain', 'out', 'k', 'seed', 'attempts', 'pool', 'method'],
    boolean: ['json'],
  }),
  async run({ values }) {
    const domainDir = requiredString(values, 'domain', 'taste generate', '<dir>');
    // τ²'s databases are db.json (airline, retail) or db.toml (telecom, with the user's user_db.toml).
    if (
      !existsSync(join(domainDir, 'tools.json')) ||
      !['db.json', 'db.toml'].some((f) => existsSync(join(domainDir, f)))
    )
      throw new UsageError(
        `--domain: ${domainDir} is not a τ² domain directory (needs tools.json and db.json or db.toml)`,
      );
    const k = optionalInteger(values, 'k', 1);
    const seed = parseSeed(values.seed, 0);
    const attempts = integerOption(values, 'attempts', 3000, 0);
    const pool = integerOption(values, 'pool', 2000, 1);
    let method: ReturnType<typeof parseMethod>;
    try {
      method = parseMethod(values.method);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    let result: Awaited<ReturnType<typeof generateTasks>>;
    try {
      result = await generateTasks(domainDir, { k, seed, attempts, pool, method, model: generatorModel() });
    } catch (err) {
      if (/no tool implementation/.test((err as Error).message))
        throw new UsageError(`--domain: ${(err as Error).message}`);
      throw err;
    }
    const out = stringOption(values, 'out') ?? join('.heldout', 'taste', result.domain, 'generated');
    await writeJson(out, 'tasks.json', result.tasks);
    const report = {
      domain: result.domain,
      seed: result.seed,
      k: result.k,
      method: method ?? 'alternate',
      medoids: result.medoids,
      generated: result.tasks.length,
      out,
      coverage: result.coverage,
      entries: result.entries.map((e) => ({
        id: e.id,
        status: e.status,
        sequence: e.sequence,
        reason: e.reason,
        decoys: e.decoys,
        evolved: e.evolved,
        llm: e.llm,
      })),
    };
    await writeJson(out, 'report.json', report);
    if (values.json) {
      console.log(JSON.stringify(report, null, 2));
      return 0;
    }
    const c = result.coverage;
    const f = (x: number | null) => (x === null ? '—' : x.toFixed(3));
    const row = (label: string, g: number | null, o: number | null, r: number | null, goal: string, met: boolean) =>
      `  ${label.padEnd(18)} ${f(g).padStart(8)} ${f(o).padStart(8)}   ×${f(r)}  (goal ${goal}: ${met ? 'met' : 'not met'})`;
    console.log(
      `${result.domain}: ${result.medoids} medoids → ${result.tasks.length} tasks (${result.entries.filter((e) => e.decoys.length).length} with decoys)`,
    );
    for (const e of result.entries.filter((x) => x.status !== 'generated'))
      console.log(`  skipped (${e.status}): ${e.sequence.join(' → ')}: ${e.reason}`);
    console.log(`coverage            generated original`);
    console.log(
      row(
        'mean pairwise WED',
        c.generated.meanPairwiseWed,
        c.original.meanPairwiseWed,
        c.ratios.meanPairwiseWed,
        '×2',
        c.goals.meanPairwiseWed,
      ),
    );
    console.log(
      row(
        'trigram TTR',
        c.generated.ngrams['3'].ttr,
        c.original.ngrams['3'].ttr,
        c.ratios.trigramTtr,
        '×2',
        c.goals.trigramTtr,
      ),
    );
    console.log(row('entropy', c.generated.entropy, c.original.entropy, c.ratios.entropy, '×1.3', c.goals.entropy));
    console.log(`written to ${out}/tasks.json and ${out}/report.json`);
    return 0;
  },
});
