/**
 * What goes upstream for one admitted call: the path, the body (the caller's with the model overwritten, or an
 * Anthropic request translated to chat for an OpenAI-compatible upstream), the headers the upstream's protocol
 * authenticates with, and which protocol's stream the gateway watches.
 */
import type http from 'node:http';
import { TranslationError, toChatRequest } from './anthropic-request.js';
import type { Endpoint, UpstreamProtocol } from './types.js';

/** The Messages API version sent when the caller names none (the one `@anthropic-ai/sdk` sends). */
const ANTHROPIC_VERSION = '2023-06-01';

export interface UpstreamPlan {
  path: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** The request was translated from Anthropic's protocol to chat: the answer is translated back. */
  translated: boolean;
  /** Whose stream events the watcher reads: the upstream's. */
  watch: Endpoint;
  /** The gateway asked for the usage chunk the caller had not: drop it on the way back. */
  dropUsageChunk: boolean;
}

/** Runs once per admitted call; `refused` names why an Anthropic request cannot be said in chat. */
export function planUpstream(
  endpoint: Endpoint,
  protocol: UpstreamProtocol,
  body: any,
  pathAndQuery: string,
  reqHeaders: http.IncomingHttpHeaders,
  apiKey: string | undefined,
  stream: boolean,
): UpstreamPlan | { refused: string } {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
  const pass = (names: string[]) => {
    for (const h of names) {
      const v = reqHeaders[h];
      if (typeof v === 'string') headers[h] = v;
    }
  };
  const messages = endpoint === 'messages' || endpoint === 'messages.count_tokens';
  if (messages && protocol === 'anthropic') {
    if (apiKey) headers['x-api-key'] = apiKey;
    headers['anthropic-version'] =
      typeof reqHeaders['anthropic-version'] === 'string' ? reqHeaders['anthropic-version'] : ANTHROPIC_VERSION;
    pass(['anthropic-beta']);
    return { path: pathAndQuery, body, headers, translated: false, watch: 'messages', dropUsageChunk: false };
  }
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  pass(['openai-beta', 'idempotency-key']);
  if (endpoint === 'messages') {
    let chat: Record<string, unknown>;
    try {
      chat = toChatRequest(body);
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      return { refused: `heldout gateway: /v1/messages request: ${err.message}` };
    }
    const q = pathAndQuery.indexOf('?');
    const path = `/chat/completions${q === -1 ? '' : pathAndQuery.slice(q)}`;
    return { path, body: chat, headers, translated: true, watch: 'chat.completions', dropUsageChunk: false };
  }
  let dropUsageChunk = false;
  if (endpoint === 'chat.completions' && stream && body.stream_options?.include_usage !== true) {
    body.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
    dropUsageChunk = true;
  }
  return { path: pathAndQuery, body, headers, translated: false, watch: endpoint, dropUsageChunk };
}
