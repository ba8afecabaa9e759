/**
 * The model gateway (DESIGN §8): an OpenAI-compatible proxy owned by the evaluator. Only node:http.
 *
 * Ways in:
 * - Unix socket (`socketPath`): the sandbox's only way out (through the relay). Calls must carry a case:
 *   `/case/<token>/v1/...` or `Authorization: Bearer <token>` (the placeholder key the delivery got).
 * - TCP on 127.0.0.1 (`tcp` option): the same, plus `/role/<role>/v1/...` for the evaluator's own roles
 *   (judge, user simulator, generator) without a case. `/role/` is refused on the socket.
 *
 * This object owns the gateway's state (registrations, recorder, upstream pool, listeners); what one request does is
 * `forward.ts`.
 */

import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaseRegistry } from './budget.js';
import { CallRecorder } from './call-recorder.js';
import { clientEnv } from './client-env.js';
import { resolveRoles, resolveSettings } from './config.js';
import type { CallContext } from './context.js';
import { handleRequest } from './forward.js';
import { Redactor } from './redact.js';
import { sendError } from './replies.js';
import type {
  CaseRegistration,
  Gateway,
  GatewayOptions,
  LedgerEntry,
  RegisteredCase,
  Role,
  RoleConfig,
} from './types.js';
import { type Abort, UpstreamPool } from './upstream.js';

class ModelGateway implements Gateway {
  readonly socketPath: string;
  tcpUrl?: string;
  readonly ledgerDir: string;
  readonly roles: Record<Role, RoleConfig>;
  private readonly ctx: CallContext;
  /** The temp dir made for the socket when none was given; removed at close. */
  private readonly ownDir: string | null = null;
  private readonly servers: http.Server[] = [];

  constructor(options: GatewayOptions) {
    this.roles = resolveRoles(options.env ?? process.env, options.roles);
    let socketPath = options.socketPath;
    if (!socketPath) {
      this.ownDir = mkdtempSync(join(tmpdir(), 'heldout-gw-'));
      chmodSync(this.ownDir, 0o755);
      socketPath = join(this.ownDir, 'gateway.sock');
    }
    this.socketPath = socketPath;
    this.ledgerDir = options.ledgerDir ?? mkdtempSync(join(tmpdir(), 'heldout-ledger-'));
    const settings = resolveSettings(options);
    const redactor = new Redactor(this.roles);
    this.ctx = {
      settings,
      roles: this.roles,
      cases: new CaseRegistry(),
      recorder: new CallRecorder(
        this.ledgerDir,
        settings.keepTrace,
        redactor,
        {
          lineBytes: settings.traceLineBytes,
          caseBytes: settings.traceCaseBytes,
        },
        options.pricing ?? null,
        options.onNotice,
      ),
      redactor,
      upstreams: new UpstreamPool(),
      inflight: new Set<Abort>(),
      closing: false,
    };
  }

  private onRequest(viaTcp: boolean) {
    return (req: http.IncomingMessage, res: http.ServerResponse) => {
      handleRequest(this.ctx, req, res, viaTcp).catch((err) => {
        if (!res.headersSent)
          sendError(res, null, 500, 'gateway_error', `heldout gateway: ${String(err)}`, 'server_error');
        else res.destroy();
      });
    };
  }

  /** Runs once, from `startGateway`: listens on the socket (mode 0666) and, when asked, on loopback TCP. */
  async listen(tcp: GatewayOptions['tcp']): Promise<void> {
    const socketServer = http.createServer(this.onRequest(false));
    socketServer.keepAliveTimeout = 30_000;
    if (existsSync(this.socketPath)) {
      if (statSync(this.socketPath).isSocket()) unlinkSync(this.socketPath);
      else throw new Error(`heldout gateway: ${this.socketPath} exists and is not a socket`);
    }
    await new Promise<void>((resolve, reject) => {
      socketServer.once('error', reject);
      socketServer.listen(this.socketPath, () => resolve());
    });
    this.servers.push(socketServer);
    chmodSync(this.socketPath, 0o666); // the sandbox's non-root user must be able to connect
    if (!tcp) return;
    const port = typeof tcp === 'object' ? (tcp.port ?? 0) : 0;
    const tcpServer = http.createServer(this.onRequest(true));
    tcpServer.keepAliveTimeout = 30_000;
    this.servers.push(tcpServer);
    await new Promise<void>((resolve, reject) => {
      tcpServer.once('error', reject);
      tcpServer.listen(port, '127.0.0.1', () => resolve());
    });
    this.tcpUrl = `http://127.0.0.1:${(tcpServer.address() as AddressInfo).port}`;
  }

  registerCase(r: CaseRegistration): RegisteredCase {
    const { caseId, trial, role, token } = this.ctx.cases.register(r);
    const env = clientEnv(token, this.tcpUrl, this.roles[role].model);
    return { caseId, trial, role, token, env };
  }

  ledgerFor(caseId: string, trial: number): LedgerEntry[] {
    return this.ctx.recorder.ledgerFor(caseId, trial);
  }

  usage(caseId: string, trial: number): { calls: number; tokens: number } {
    return this.ctx.cases.usage(caseId, trial);
  }

  runSpend(runId: string): { usd: number; reservedUsd: number } {
    return this.ctx.cases.runSpend(runId);
  }

  pending(caseId: string, trial: number): { reserved: number; waiting: number } {
    return this.ctx.cases.pending(caseId, trial);
  }

  roleBaseURL(role: Role): string {
    if (!this.tcpUrl) throw new Error('roleBaseURL: start the gateway with { tcp: true }');
    return `${this.tcpUrl}/role/${role}/v1`;
  }

  flush(): Promise<void> {
    return this.ctx.recorder.flush();
  }

  async close(): Promise<void> {
    if (this.ctx.closing) return;
    this.ctx.closing = true;
    const { inflight } = this.ctx;
    for (const ac of inflight) ac.abort();
    // a cut-short call records itself as it unwinds: give it a moment (at most a second)
    for (let i = 0; i < 100 && inflight.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    this.ctx.upstreams.destroy();
    await this.ctx.recorder.close();
    try {
      unlinkSync(this.socketPath);
    } catch {}
    if (this.ownDir) rmSync(this.ownDir, { recursive: true, force: true });
  }
}

/** Starts a gateway listening on its Unix socket (and loopback TCP with `tcp`); resolves once it accepts calls. */
export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const gateway = new ModelGateway(options);
  await gateway.listen(options.tcp);
  return gateway;
}
