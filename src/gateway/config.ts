import { DEFAULT_TRACE_CASE_BYTES, DEFAULT_TRACE_LINE_BYTES, MIN_TRACE_LINE_BYTES } from './bounds.js';
import { DEFAULT_RESERVE_OUTPUT_TOKENS } from './budget.js';
import { type GatewayOptions, ROLES, type Role, type RoleConfig, type UpstreamProtocol } from './types.js';

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

function pick(env: Record<string, string | undefined>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/**
 * Upstream of each role from the environment: `HELDOUT_<ROLE>_BASE_URL|API_KEY|MODEL`, each falling back to
 * `OPENAI_BASE_URL|OPENAI_API_KEY|OPENAI_MODEL`. A key with no base URL means OpenAI's own
 * (`https://api.openai.com/v1`); neither means the role has no upstream (calls get 503 `no_model_configured`).
 * Embeddings have their own model: `HELDOUT_<ROLE>_EMBEDDING_MODEL`, else `HELDOUT_EMBEDDING_MODEL`, else
 * `OPENAI_EMBEDDING_MODEL` (never the chat model: a provider refuses a chat model on `/embeddings`). The upstream's
 * protocol: `HELDOUT_<ROLE>_PROTOCOL`, else `HELDOUT_PROTOCOL` (`openai` or `anthropic`; see `protocolOf`).
 */
export function roleConfigFromEnv(env: Record<string, string | undefined> = process.env): Record<Role, RoleConfig> {
  const out = {} as Record<Role, RoleConfig>;
  for (const role of ROLES) {
    const R = role.toUpperCase();
    const apiKey = pick(env, `HELDOUT_${R}_API_KEY`, 'OPENAI_API_KEY');
    let baseURL = pick(env, `HELDOUT_${R}_BASE_URL`, 'OPENAI_BASE_URL');
    if (!baseURL && apiKey) baseURL = DEFAULT_OPENAI_BASE_URL;
    const model = pick(env, `HELDOUT_${R}_MODEL`, 'OPENAI_MODEL');
    const embeddingModel = pick(
      env,
      `HELDOUT_${R}_EMBEDDING_MODEL`,
      'HELDOUT_EMBEDDING_MODEL',
      'OPENAI_EMBEDDING_MODEL',
    );
    const protocol = pick(env, `HELDOUT_${R}_PROTOCOL`, 'HELDOUT_PROTOCOL');
    const cfg: RoleConfig = {};
    if (protocol) cfg.protocol = parseProtocol(protocol, `HELDOUT_${R}_PROTOCOL`);
    if (baseURL) cfg.baseURL = baseURL.replace(/\/+$/, '');
    if (apiKey) cfg.apiKey = apiKey;
    if (model) cfg.model = model;
    if (embeddingModel) cfg.embeddingModel = embeddingModel;
    out[role] = cfg;
  }
  return out;
}

/** `roleConfigFromEnv(env)` with `overrides` applied field by field. */
export function resolveRoles(
  env: Record<string, string | undefined>,
  overrides: Partial<Record<Role, RoleConfig>> = {},
): Record<Role, RoleConfig> {
  const base = roleConfigFromEnv(env);
  for (const role of ROLES) {
    const o = overrides[role];
    if (!o) continue;
    const merged: RoleConfig = { ...base[role] };
    if (o.baseURL !== undefined) merged.baseURL = o.baseURL.replace(/\/+$/, '');
    if (o.apiKey !== undefined) merged.apiKey = o.apiKey;
    if (o.model !== undefined) merged.model = o.model;
    if (o.embeddingModel !== undefined) merged.embeddingModel = o.embeddingModel;
    if (o.protocol !== undefined) merged.protocol = parseProtocol(o.protocol, `roles.${role}.protocol`);
    base[role] = merged;
  }
  return base;
}

function parseProtocol(value: string, field: string): UpstreamProtocol {
  if (value === 'openai' || value === 'anthropic') return value;
  throw new Error(`heldout gateway: ${field} is ${JSON.stringify(value)}; expected openai or anthropic`);
}

/** What a role's upstream speaks: as configured, else Anthropic's for api.anthropic.com, else OpenAI's. */
export function protocolOf(cfg: RoleConfig): UpstreamProtocol {
  if (cfg.protocol) return cfg.protocol;
  return cfg.baseURL && /^https?:\/\/api\.anthropic\.com(\/|$)/.test(cfg.baseURL) ? 'anthropic' : 'openai';
}

/** The model a call of this role and endpoint is sent with; undefined when none is configured. */
export function modelFor(cfg: RoleConfig, embeddings: boolean): string | undefined {
  return embeddings ? cfg.embeddingModel : cfg.model;
}

/** Why a role without a base URL or model gets 503 `no_model_configured`: names the variables to set. */
export function noModelMessage(role: Role, cfg: RoleConfig, embeddings = false): string {
  const R = role.toUpperCase();
  const missing = !cfg.baseURL
    ? `set HELDOUT_${R}_BASE_URL (and HELDOUT_${R}_API_KEY, HELDOUT_${R}_MODEL) or OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL`
    : embeddings
      ? `set HELDOUT_${R}_EMBEDDING_MODEL or HELDOUT_EMBEDDING_MODEL (embeddings are never sent with the chat model)`
      : `set HELDOUT_${R}_MODEL or OPENAI_MODEL`;
  const what = embeddings ? 'embedding model' : 'model';
  return `heldout gateway: no ${what} configured for role ${role}: ${missing}`;
}

/** The gateway's limits with their defaults filled in (see `GatewayOptions`). */
export interface GatewaySettings {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  maxBodyBytes: number;
  keepTrace: boolean;
  reserveOutputTokens: number;
  traceLineBytes: number;
  traceCaseBytes: number;
}

export function resolveSettings(options: GatewayOptions): GatewaySettings {
  return {
    retries: options.retry?.retries ?? 3,
    baseDelayMs: options.retry?.baseDelayMs ?? 500,
    maxDelayMs: options.retry?.maxDelayMs ?? 8000,
    timeoutMs: options.timeoutMs ?? 300_000,
    maxBodyBytes: options.maxBodyBytes ?? 32 * 1024 * 1024,
    keepTrace: options.trace ?? true,
    reserveOutputTokens: options.reserveOutputTokens ?? DEFAULT_RESERVE_OUTPUT_TOKENS,
    // below a few KiB a line could not hold its call's fields and the two cut bodies' sizes
    traceLineBytes: Math.max(MIN_TRACE_LINE_BYTES, options.traceLimits?.lineBytes ?? DEFAULT_TRACE_LINE_BYTES),
    traceCaseBytes: Math.max(4 * MIN_TRACE_LINE_BYTES, options.traceLimits?.caseBytes ?? DEFAULT_TRACE_CASE_BYTES),
  };
}
