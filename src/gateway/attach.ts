import { dirname } from 'node:path';
import type { GatewayAttachment } from '../sandbox/index.js';
import { clientEnv } from './client-env.js';
import { writeRelayScript } from './relay-source.js';
import type { Gateway, RegisteredCase } from './types.js';

/** Loopback port the relay listens on inside a sandbox (each sandbox has its own loopback, so one fixed port serves all). */
export const DEFAULT_RELAY_PORT = 4141;

/**
 * What a sandbox needs to reach the gateway for one registered case: the host socket to bind-mount, the relay
 * script to run inside (`node <relayScript> <port> <socketPathInSandbox> [-- <entry command>]`), and the delivery's
 * environment: `OPENAI_BASE_URL=http://127.0.0.1:<port>/v1`, `ANTHROPIC_BASE_URL` (the same without `/v1`) and the
 * placeholder key as `OPENAI_API_KEY` and `ANTHROPIC_API_KEY` (never the real key); see `clientEnv`.
 * The relay script is written beside the gateway's socket (`relayDir` to put it elsewhere).
 */
export function attachmentFor(
  gateway: Pick<Gateway, 'socketPath'>,
  registered: Pick<RegisteredCase, 'token' | 'env'>,
  options: { port?: number; relayDir?: string } = {},
): GatewayAttachment {
  const port = options.port ?? DEFAULT_RELAY_PORT;
  const relayScript = writeRelayScript(options.relayDir ?? dirname(gateway.socketPath));
  const root = `http://127.0.0.1:${port}`;
  const model = registered.env.OPENAI_MODEL;
  return {
    socketPath: gateway.socketPath,
    relayScript,
    port,
    env: { ...registered.env, ...clientEnv(registered.token, root, model) },
  };
}
