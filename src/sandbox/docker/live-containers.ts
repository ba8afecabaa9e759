/**
 * The containers this process has started and not removed yet: removed with the run on SIGINT (teardown.ts), and
 * at exit through a child node process, since an `exit` handler cannot wait for I/O.
 */
import { spawnSync } from 'node:child_process';
import type Docker from 'dockerode';
import { registerCleanup } from '../teardown.js';
import { engineSocketPath, statusOf } from './engine.js';

const containers = new Map<string, Docker>();
let registered = false;

/** Called right after a container is created: from now on a signal or exit removes it. */
export function trackContainer(id: string, docker: Docker): void {
  if (!registered) {
    registered = true;
    registerCleanup(removeAll, removeSynchronously);
  }
  containers.set(id, docker);
}

/** Called once the container is removed (or known gone). */
export function untrackContainer(id: string): void {
  containers.delete(id);
}

/** Ids of containers this process started and has not removed yet. */
export function liveContainers(): string[] {
  return [...containers.keys()];
}

/** What `removeContainers` did: ids removed, ids already gone (404), and the refusals left after the retry. */
export interface ContainerRemoval {
  removed: string[];
  gone: string[];
  failed: { id: string; err: unknown }[];
}

/**
 * Force-removes `ids` at once; those refused are tried once more after the others are gone, since podman refuses
 * to remove a pod's holder while a container still joins its namespace (docker removes them in any order).
 */
export async function removeContainers(docker: Docker, ids: string[]): Promise<ContainerRemoval> {
  const out: ContainerRemoval = { removed: [], gone: [], failed: [] };
  let pending = ids;
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const refused: { id: string; err: unknown }[] = [];
    await Promise.all(
      pending.map((id) =>
        docker
          .getContainer(id)
          .remove({ force: true, v: true })
          .then(
            () => out.removed.push(id),
            (err) => (statusOf(err) === 404 ? out.gone.push(id) : refused.push({ id, err })),
          ),
      ),
    );
    out.failed = refused;
    pending = refused.map((r) => r.id);
  }
  for (const id of [...out.removed, ...out.gone]) untrackContainer(id);
  return out;
}

async function removeAll(): Promise<void> {
  const byEngine = new Map<Docker, string[]>();
  for (const [id, docker] of containers) byEngine.set(docker, [...(byEngine.get(docker) ?? []), id]);
  await Promise.all([...byEngine].map(([docker, ids]) => removeContainers(docker, ids)));
}

/** The exit-time removal: one child node process per Unix-socket engine; TCP engines are left to `heldout gc`. */
function removeSynchronously(): void {
  if (containers.size === 0) return;
  const bySocket = new Map<string, string[]>();
  for (const [id, docker] of containers) {
    const socketPath = engineSocketPath(docker);
    if (socketPath) bySocket.set(socketPath, [...(bySocket.get(socketPath) ?? []), id]);
  }
  for (const [socketPath, ids] of bySocket) {
    // Two rounds, as removeContainers: a refusal (podman's pod holder) is retried once the others are gone.
    const script = `const http=require('http');const del=(id)=>new Promise((ok)=>{const r=http.request({socketPath:${JSON.stringify(socketPath)},method:'DELETE',path:'/containers/'+id+'?force=1&v=1'},(res)=>{res.resume();res.on('end',()=>ok(res.statusCode<400||res.statusCode===404))});r.on('error',()=>ok(true));r.end()});(async()=>{let left=${JSON.stringify(ids)};for(let i=0;i<2&&left.length;i++){const done=await Promise.all(left.map(del));left=left.filter((_,j)=>!done[j])}process.exit(0)})();setTimeout(()=>process.exit(0),8000)`;
    spawnSync(process.execPath, ['-e', script], { stdio: 'ignore', timeout: 10_000 });
  }
  containers.clear();
}
