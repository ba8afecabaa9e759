import {
  BACKENDS,
  backendFor,
  buildRuntimeImage,
  ensureRuntimeImage,
  RUNTIME_IMAGE,
  runtimeRecipe,
} from '../../sandbox/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions, stringOption } from '../options.js';

/** The registered backends that build the runtime image on their engine (from the registry, not a list here). */
const IMAGE_BACKENDS = Object.entries(BACKENDS)
  .filter(([, b]) => 'runtimeImage' in b && typeof b.runtimeImage === 'function')
  .map(([name]) => name);

export default defineCommand({
  name: 'image build',
  summary: 'build the local runtime image (node, python3 + the host pytest, bash, coreutils, git) without any registry',
  help: `Usage: heldout image build [--tag ${RUNTIME_IMAGE}] [--sandbox ${IMAGE_BACKENDS.join('|')}] [--if-missing] [--dry-run] [--json]

Assembles a root filesystem from this host's node, python3 (with its standard library, minus test/, idlelib,
tkinter, ensurepip, and the host's pytest with what it requires when a host python of that version has it), sh,
bash, coreutils, git and patch (each when present), every shared library ldd lists for them and for
python's extension modules, an /etc/passwd with the non-root sandbox user (65534), and imports it into the docker
engine (docker import; no registry is contacted). Takes a few seconds.

Options:
  --tag name     image name (default ${RUNTIME_IMAGE})
  --sandbox b    the backend whose engine gets it (default the docker engine; podman has no registry either)
  --if-missing   build only when the image is missing or was made from a different recipe
  --dry-run      print what would go in, build nothing
  --json         print one JSON document

Exit: 0 built (or up to date), 2 no engine / usage error.`,
  options: declareOptions({ string: ['tag', 'sandbox'], boolean: ['if-missing', 'dry-run', 'json'] }),
  async run({ values }) {
    const tag = stringOption(values, 'tag') ?? RUNTIME_IMAGE;
    const sandbox = stringOption(values, 'sandbox');
    if (sandbox !== undefined && !IMAGE_BACKENDS.includes(sandbox))
      throw new UsageError(
        `--sandbox: expected ${IMAGE_BACKENDS.join(' or ')} (a backend that runs images), got ${sandbox}`,
      );
    if (values['dry-run']) {
      const r = await runtimeRecipe();
      const bytes = r.entries.reduce(
        (s, e) => s + (e.type === 'file' ? e.size : e.type === 'content' ? e.content.length : 0),
        0,
      );
      const summary = {
        tag,
        recipeHash: r.hash,
        entries: r.entries.length,
        bytes,
        node: r.node,
        python: r.python,
        tools: r.tools,
        missing: r.missing,
      };
      console.log(
        values.json
          ? JSON.stringify(summary)
          : `${tag}: ${r.entries.length} entries, ${(bytes / 1e6).toFixed(1)} MB, recipe ${r.hash}`,
      );
      return 0;
    }
    const ifMissing = values['if-missing'] === true;
    const built = sandbox
      ? await backendFor(sandbox).runtimeImage!({ tag, ifMissing })
      : ifMissing
        ? await ensureRuntimeImage({ tag })
        : await buildRuntimeImage({ tag });
    if (values.json) {
      console.log(JSON.stringify(built));
    } else {
      console.log(
        `${built.built ? 'built' : 'up to date'} ${built.tag} ${built.id.slice(0, 19)} in ${(built.ms / 1000).toFixed(1)} s` +
          ` (python ${built.python ?? 'none'}, pytest ${built.pytest ?? 'none'}, ${built.tools.length} tools)`,
      );
      for (const w of built.warnings) console.error(`warning: ${w}`);
    }
    return 0;
  },
});
