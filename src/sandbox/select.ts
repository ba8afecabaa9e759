import { dockerBackend } from './docker.js';
import { engineAnswers } from './engine.js';
import { processBackend } from './process.js';
import { swarmBackend } from './swarm.js';
import type { SandboxBackend, SandboxKind } from './types.js';

/**
 * The backend for `kind`: `docker` requires an engine that answers (DOCKER_HOST or the local socket) and throws
 * otherwise; `swarm` requires that engine to be a swarm manager; `process` is always there; `auto` takes docker when
 * an engine answers within ~2 s, else process (never swarm: scheduling through a swarm is a deliberate choice).
 */
export async function resolveSandbox(
  kind: SandboxKind = 'auto',
  options: { timeoutMs?: number } = {},
): Promise<SandboxBackend> {
  if (kind === 'process') return processBackend;
  const answers = await engineAnswers(options.timeoutMs ?? 2000);
  const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  if (kind === 'swarm') {
    if (!answers) throw new Error(`sandbox swarm: no docker engine answers at ${where} (set DOCKER_HOST to a manager)`);
    if (!(await swarmBackend.available())) {
      throw new Error(
        `sandbox swarm: the engine at ${where} is not a swarm manager (run docker swarm init there, or point DOCKER_HOST at a manager)`,
      );
    }
    return swarmBackend;
  }
  if (answers) return dockerBackend;
  if (kind === 'docker') {
    throw new Error(
      `sandbox docker: no docker engine answers at ${where} (start one, set DOCKER_HOST, or use --sandbox process)`,
    );
  }
  return processBackend;
}
