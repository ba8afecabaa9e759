import { dockerBackend } from './docker.js';
import { engineAnswers } from './engine.js';
import { processBackend } from './process.js';
import type { SandboxBackend, SandboxKind } from './types.js';

/**
 * The backend for `kind`: `docker` requires an engine that answers (DOCKER_HOST or the local socket) and throws
 * otherwise; `process` is always there; `auto` takes docker when an engine answers within ~2 s, else process.
 */
export async function resolveSandbox(
  kind: SandboxKind = 'auto',
  options: { timeoutMs?: number } = {},
): Promise<SandboxBackend> {
  if (kind === 'process') return processBackend;
  const answers = await engineAnswers(options.timeoutMs ?? 2000);
  if (answers) return dockerBackend;
  if (kind === 'docker') {
    const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
    throw new Error(
      `sandbox docker: no docker engine answers at ${where} (start one, set DOCKER_HOST, or use --sandbox process)`,
    );
  }
  return processBackend;
}
