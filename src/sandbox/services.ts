/**
 * What a sandbox has beside the delivery's own process (DESIGN §7, issue 19): the model gateway it reaches and the
 * case services started in its pod. Shared by one-shot executions (`protocol.ts`) and trials (`trial.ts`).
 */

/** How the delivery reaches the evaluator's model gateway from a sandbox with no network. */
export interface GatewayAttachment {
  /**
   * Host path of the gateway's Unix socket; bind-mounted into the sandbox at /gateway/gateway.sock. The sandbox user
   * (65534, or the caller's uid when not root) must be able to connect: mode 0666 (connect needs write permission).
   */
  socketPath: string;
  /**
   * Host path of the relay script (a Node file) that listens on the sandbox's 127.0.0.1:port and forwards to the
   * socket. Mounted at /gateway/relay.mjs and started as `node /gateway/relay.mjs <port> /gateway/gateway.sock &`
   * before the entry command; the wrapper waits (≤ 4 s) until 127.0.0.1:<port> listens, then runs the command.
   */
  relayScript: string;
  /** Loopback port the relay listens on inside the sandbox. */
  port: number;
  /** Environment for the delivery, e.g. OPENAI_BASE_URL=http://127.0.0.1:<port>/v1 and a per-case placeholder key. */
  env: Record<string, string>;
  /**
   * False when the case may make no model call (its budget allows none): a backend that cannot reach the gateway
   * (a remote engine without a forwarded socket) then runs the case without it instead of refusing. Default true.
   */
  required?: boolean;
}

/** How a case service says it is ready, polled from inside the pod until the service's deadline (issue 19). */
export type ServiceReady =
  /** An HTTP GET of `http://127.0.0.1:<port><path>` answers below 500. */
  | { http: string; port: number }
  /** A TCP connection to 127.0.0.1:<port> is accepted. */
  | { tcp: number }
  /** The command exits 0 inside the service (a string under /bin/sh -c, an array exec'd as is). */
  | { command: string | string[] };

/**
 * A service a case needs beside the delivery (a fixture API, a database, a compose service): started before the
 * case in the case's own network namespace (loopback only; `name` resolves to 127.0.0.1 there), removed with it.
 */
export interface ServiceSpec {
  /** Host name inside the pod, and how errors and logs name the service. */
  name: string;
  /** A local image (heldout pulls nothing); already mapped and built by the caller. */
  image: string;
  /** A string runs under /bin/sh -c (the image's entrypoint bypassed); an array replaces the image's CMD; none: the image's own. */
  command?: string | string[];
  env?: Record<string, string>;
  /** Evaluator-owned files, mounted read-only into this service only. */
  files?: { hostPath: string; containerPath: string }[];
  /** None: ready once it runs. */
  ready?: ServiceReady;
  /** Seconds the service has to become ready. */
  timeoutSeconds: number;
  /** Defaults: 1024 MiB, 1 cpu, 256 pids. */
  limits?: { memoryMb?: number; cpus?: number; pids?: number };
  /** `uid[:gid]` to run as; default the image's user. */
  user?: string;
}

/** A case service as it ran: its image, how long it took to be ready, and its log file (in `serviceLogDir`) if kept. */
export interface ServiceRecord {
  name: string;
  image: string;
  readyMs: number;
  log: string | null;
}

/**
 * An evaluator-owned service mapped to a host URL (issue 30), reached like the gateway: the host's Unix socket
 * `socketPath` (piped to the URL's host:port) bind-mounted in, the relay script listening on 127.0.0.1:<port>.
 */
export interface ServiceRelay {
  /** The service's name (the commission's `external`): how a relay that does not start is named. */
  name: string;
  socketPath: string;
  relayScript: string;
  /** Loopback port inside the sandbox; `env` names it as `127.0.0.1:<port>`. */
  port: number;
  /** The variables the package documents, set to the in-sandbox URL. */
  env: Record<string, string>;
}
