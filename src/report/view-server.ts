import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { compareSummaries } from './compare.js';
import { DATA_DIR, htmlDataInMemory } from './html-data.js';
import { migrateSummary } from './migrate.js';
import { renderHtml } from './render-html.js';
import { type RunListing, renderComparePage, renderMessagePage, renderRunsPage } from './render-view.js';
import type { Summary } from './schema.js';

/** The addresses `heldout view` may listen on: loopback only, the report is nobody else's business. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

export interface ViewServerOptions {
  /** The directory whose runs are listed: itself when it holds a summary.json, and its subdirectories (two deep). */
  root: string;
  host?: string;
  /** 0 for any free port. */
  port?: number;
}

export interface ViewServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Run directories under root (root itself, children and grandchildren) that hold a summary.json. */
async function findRuns(root: string): Promise<{ name: string; file: string; mtimeMs: number }[]> {
  const out: { name: string; file: string; mtimeMs: number }[] = [];
  const visit = async (dir: string, depth: number) => {
    const file = path.join(dir, 'summary.json');
    const st = await stat(file).catch(() => null);
    if (st?.isFile()) out.push({ name: path.relative(root, dir) || '.', file, mtimeMs: st.mtimeMs });
    if (depth === 2) return;
    const kids = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const k of kids) {
      // A case's records, the gateway ledger and the page's chunks live inside a run; they are never runs themselves.
      if (k.isDirectory() && !k.name.startsWith('.') && !['cases', 'ledger', DATA_DIR].includes(k.name)) {
        await visit(path.join(dir, k.name), depth + 1);
      }
    }
  };
  await visit(root, 0);
  return out;
}

/**
 * Starts `heldout view`'s HTTP server on a loopback address (any other host is refused before anything listens):
 * `/` lists the runs under root with their gates and held-out figures, `/run/<name>/` renders that run's report
 * from its summary.json (summary@1 runs through the migration), `/compare?a=&b=[&da=&db=]` puts two runs side by
 * side with their case-by-case comparison. Requests whose Host is not loopback are refused (DNS rebinding).
 * Summaries are re-read when their file changes, so a run that finishes while the viewer is open appears.
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(host)) {
    throw new Error(`heldout view listens on loopback only (${LOOPBACK_HOSTS.join(', ')}), not ${host}`);
  }
  const root = path.resolve(options.root);
  const cache = new Map<string, { mtimeMs: number; summary: Summary | null; error: string | null }>();
  // A run's page and chunks, rendered from its summary when first asked for and kept while the file is unchanged.
  const pages = new Map<string, { mtimeMs: number; html: string; dir: string; chunks: Map<string, string> }>();
  const pageOf = (run: { file: string; mtimeMs: number; summary: Summary }) => {
    let hit = pages.get(run.file);
    if (!hit || hit.mtimeMs !== run.mtimeMs) {
      const { chunks, manifest } = htmlDataInMemory(run.summary);
      hit = { mtimeMs: run.mtimeMs, html: renderHtml(run.summary, manifest), dir: manifest.dir, chunks };
      pages.set(run.file, hit);
    }
    return hit;
  };

  const listing = async (): Promise<(RunListing & { mtimeMs: number; file: string })[]> => {
    const runs = await findRuns(root);
    const out = [];
    for (const r of runs) {
      let hit = cache.get(r.file);
      if (!hit || hit.mtimeMs !== r.mtimeMs) {
        try {
          hit = {
            mtimeMs: r.mtimeMs,
            summary: migrateSummary(JSON.parse(await readFile(r.file, 'utf8')), r.file),
            error: null,
          };
        } catch (err) {
          hit = { mtimeMs: r.mtimeMs, summary: null, error: (err as Error).message };
        }
        cache.set(r.file, hit);
      }
      out.push({ ...r, summary: hit.summary, error: hit.error });
    }
    const started = (x: RunListing) => x.summary?.run.startedAt ?? '';
    return out.sort((x, y) => started(y).localeCompare(started(x)) || x.name.localeCompare(y.name));
  };

  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, {
      'content-type': `${type}; charset=utf-8`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    if (!(LOOPBACK_HOSTS as readonly string[]).includes(hostHeader)) {
      send(res, 403, 'text/plain', 'heldout view answers loopback hosts only\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain', 'GET only\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const runs = await listing();
    const byName = (name: string | null) => runs.find((r) => r.name === name) ?? null;
    if (url.pathname === '/') {
      send(res, 200, 'text/html', renderRunsPage(root, runs));
      return;
    }
    if (url.pathname === '/api/runs') {
      const list = runs.map((r) => ({
        name: r.name,
        runId: r.summary?.run.id ?? null,
        startedAt: r.summary?.run.startedAt ?? null,
        gate: r.summary?.gate.verdict ?? null,
        error: r.error,
      }));
      send(res, 200, 'application/json', `${JSON.stringify(list)}\n`);
      return;
    }
    const m = /^\/run\/([^/]+)\/(summary\.json|index\.files\/[0-9a-f]+\/[a-z0-9-]+\.js)?$/.exec(url.pathname);
    if (m) {
      const run = byName(decodeURIComponent(m[1]));
      if (!run)
        send(res, 404, 'text/html', renderMessagePage('No such run', `no run named ${decodeURIComponent(m[1])}`));
      else if (m[2] === 'summary.json') send(res, 200, 'application/json', await readFile(run.file, 'utf8'));
      else if (!run.summary) send(res, 500, 'text/html', renderMessagePage('Unreadable run', run.error ?? ''));
      else if (!m[2]) send(res, 200, 'text/html', pageOf({ ...run, summary: run.summary }).html);
      else {
        // The chunks of the page as rendered now; a page rendered before the summary changed asks for another key.
        const page = pageOf({ ...run, summary: run.summary });
        const [dir, name] = [m[2].slice(0, m[2].lastIndexOf('/')), m[2].slice(m[2].lastIndexOf('/') + 1, -3)];
        const text = dir === page.dir ? page.chunks.get(name) : undefined;
        if (text === undefined) send(res, 404, 'text/plain', `no chunk ${m[2]} in this run's report\n`);
        else send(res, 200, 'text/javascript', text);
      }
      return;
    }
    if (url.pathname === '/compare') {
      const a = byName(url.searchParams.get('a'));
      const b = byName(url.searchParams.get('b'));
      if (!a?.summary || !b?.summary) {
        send(res, 400, 'text/html', renderMessagePage('Pick two runs', 'choose a readable run for both A and B'));
        return;
      }
      const da = url.searchParams.get('da') || undefined;
      const db = url.searchParams.get('db') || undefined;
      const cmp = compareSummaries(a.summary, b.summary, {
        deliveryA: da,
        deliveryB: db ?? (a === b ? undefined : da),
      });
      send(
        res,
        200,
        'text/html',
        renderComparePage({ name: a.name, summary: a.summary }, { name: b.name, summary: b.summary }, cmp),
      );
      return;
    }
    send(res, 404, 'text/html', renderMessagePage('Not found', url.pathname));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `${(err as Error).message}\n`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4848, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}/`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
