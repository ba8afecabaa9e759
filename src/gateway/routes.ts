/**
 * Which case (or evaluator role) a request is for, and which endpoint it asks for. Attribution is by path
 * (`/case/<token>/…`, `/role/<role>/…`, TCP only) or by the placeholder key in the headers; `/v1` is optional.
 */
import type http from 'node:http';
import type { CaseBudget, CaseRegistry } from './budget.js';
import { type Endpoint, ROLES, type Role } from './types.js';

/** The endpoints forwarded upstream, by path after `/v1`. */
export const ENDPOINTS: Record<string, Endpoint> = {
  '/chat/completions': 'chat.completions',
  '/responses': 'responses',
  '/embeddings': 'embeddings',
  '/messages': 'messages',
  '/messages/count_tokens': 'messages.count_tokens',
};

const TOKEN_RE = /^heldout-[A-Za-z0-9_-]{8,}$/;

/** A request that belongs to no one: answered with this error and not ledgered. */
export interface Unattributed {
  status: number;
  code: string;
  message: string;
}

export interface Attributed {
  role: Role;
  /** The case id; `_<role>` for an evaluator-role call. */
  caseId: string;
  trial: number;
  /** The registration to charge; null for an evaluator-role call. */
  budget: CaseBudget | null;
  /** The path after the attribution prefix and `/v1`, e.g. `/chat/completions`. */
  path: string;
  /** `?…` as received, or ''. */
  query: string;
}

function tokenFromHeaders(req: http.IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1]!;
  }
  const k = req.headers['api-key'] ?? req.headers['x-api-key'];
  return typeof k === 'string' ? k.trim() : null;
}

/** Runs first on every request: who it is for, or why it is for no one. */
export function attribute(
  req: http.IncomingMessage,
  viaTcp: boolean,
  cases: CaseRegistry,
): { ok: true; to: Attributed } | { ok: false; refused: Unattributed } {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  let budget: CaseBudget | null = null;
  let roleName: string | null = null;

  const mCase = /^\/case\/([^/]+)(\/.*)?$/.exec(path);
  const mRole = /^\/role\/([^/]+)(\/.*)?$/.exec(path);
  if (mCase) {
    budget = cases.forToken(decodeURIComponent(mCase[1]!));
    path = mCase[2] ?? '/';
    if (!budget) return refused(401, 'unknown_case_token', 'heldout gateway: no case is registered under this token');
  } else if (mRole) {
    if (!viaTcp) {
      return refused(
        403,
        'role_path_forbidden',
        'heldout gateway: /role/ paths are for the evaluator, not for a sandbox',
      );
    }
    if (!(ROLES as readonly string[]).includes(mRole[1]!)) {
      return refused(404, 'unknown_role', `heldout gateway: unknown role ${mRole[1]} (one of ${ROLES.join(', ')})`);
    }
    roleName = mRole[1]!;
    path = mRole[2] ?? '/';
  } else {
    const token = tokenFromHeaders(req);
    budget = token ? cases.forToken(token) : null;
    if (!budget) {
      const msg =
        token && TOKEN_RE.test(token)
          ? 'heldout gateway: no case is registered under this token (has the case ended?)'
          : 'heldout gateway: calls must carry the case placeholder key (OPENAI_API_KEY) as "Authorization: Bearer <key>" or use /case/<key>/v1';
      return refused(401, 'unknown_case_token', msg);
    }
  }
  if (path.startsWith('/v1/') || path === '/v1') path = path.slice(3) || '/';
  if (budget) {
    return { ok: true, to: { role: budget.role, caseId: budget.caseId, trial: budget.trial, budget, path, query } };
  }
  const role = roleName as Role;
  return { ok: true, to: { role, caseId: `_${role}`, trial: 0, budget: null, path, query } };
}

function refused(status: number, code: string, message: string): { ok: false; refused: Unattributed } {
  return { ok: false, refused: { status, code, message } };
}

/** `GET /models` and `/models/<id>`: answered by the gateway with the role's one model; not a model call. */
export function isModelsRequest(method: string | undefined, path: string): boolean {
  return method === 'GET' && (path === '/models' || path.startsWith('/models/'));
}

/** The body of that answer: the role's model, and its embedding model when one is set. */
export function modelsBody(path: string, model: string, embeddingModel?: string): unknown {
  const entry = (id: string) => ({ id, object: 'model', created: 0, owned_by: 'heldout-gateway' });
  const ids = embeddingModel && embeddingModel !== model ? [model, embeddingModel] : [model];
  if (path === '/models') return { object: 'list', data: ids.map(entry) };
  let asked = path.slice('/models/'.length);
  try {
    asked = decodeURIComponent(asked);
  } catch {} // a malformed escape names no model of ours
  return entry(ids.includes(asked) ? asked : model);
}
