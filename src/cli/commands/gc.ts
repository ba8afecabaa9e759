import { type Removed, RUN_LABEL, registeredBackends } from '../../sandbox/index.js';
import { defineCommand } from '../command.js';
import { declareOptions, stringOption } from '../options.js';

export default defineCommand({
  name: 'gc',
  summary: 'remove what previous runs left behind (containers, services, networks, volumes, cgroups)',
  help: `Usage: heldout gc [--run <run-id>] [--force] [--json]

Runs every sandbox backend's cleanup: removes the containers, Swarm services, networks and volumes labelled
heldout=1 (with --run: only those labelled ${RUN_LABEL}=<run-id>) and the process backend's leftover cgroups —
what a run killed with SIGKILL could not clean up itself. Images are kept.

Each of them names the process that made it. What a live process still owns is kept (a run in progress, here or
in another worktree); without --run, so is what cannot be checked from this host (made on another host sharing
the engine, or by a heldout too old to say). --force removes them all the same.

An engine that is not installed here (no podman socket) has nothing to sweep and is passed over.

Exit: 0 done, 2 a backend's leftovers could not be reached (an engine that is there does not answer); the others
are still cleaned.`,
  options: declareOptions({ string: ['run'], boolean: ['json', 'force'] }),
  async run({ values }) {
    const total: Removed = { containers: 0, networks: 0, volumes: 0, services: 0 };
    // docker and swarm sweep the same engine: what one keeps, the other sees again.
    const keptBy = new Map<string, number>();
    let unreached = false;
    for (const backend of registeredBackends()) {
      try {
        const removed = await backend.cleanup(stringOption(values, 'run'), { keepLive: !values.force });
        for (const [what, n] of Object.entries(removed)) {
          if (what === 'kept') keptBy.set(backend.name, Math.max(keptBy.get(backend.name) ?? 0, n));
          else total[what] = (total[what] ?? 0) + n;
        }
      } catch (err) {
        unreached = true;
        console.error(`heldout gc: ${backend.kind}: ${(err as Error).message}`);
      }
    }
    const kept = [...keptBy.values()].reduce((a, b) => a + b, 0);
    if (values.json) console.log(JSON.stringify({ ...total, kept }));
    else {
      const { services, ...rest } = total;
      const counts = Object.entries({ services, ...rest }).map(([what, n]) => `${n} ${what.replace(/s$/, '')}(s)`);
      const note =
        kept > 0 ? `; kept ${kept} still owned by a live run (or not checkable here; --force removes them)` : '';
      console.log(`removed ${counts.join(', ')}${note}`);
    }
    return unreached ? 2 : 0;
  },
});
