/**
 * An Anthropic Messages API request (`POST /v1/messages`) as an OpenAI chat-completions request, for a role whose
 * upstream speaks only OpenAI's protocol. Pure; field shapes as `@anthropic-ai/sdk`'s `MessageCreateParams` names
 * them. What chat cannot carry is either dropped when it only steers the provider (`thinking`, `top_k`,
 * `cache_control`, `metadata`) or refused when it would change the answer (Anthropic's own server tools).
 */

/** A request that cannot be translated: a 400 naming the field, the caller's fault as any malformed request is. */
export class TranslationError extends Error {}

type Json = Record<string, any>;

const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Text of a `system` or tool-result content: a string, or text blocks joined by blank lines. */
function textOf(content: unknown, field: string): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  if (!Array.isArray(content)) throw new TranslationError(`${field} must be a string or an array of blocks`);
  return content
    .filter((b) => isObj(b) && b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('\n\n');
}

function imagePart(block: Json, field: string): Json {
  const src = block.source;
  if (isObj(src) && src.type === 'base64') {
    return { type: 'image_url', image_url: { url: `data:${src.media_type};base64,${src.data}` } };
  }
  if (isObj(src) && src.type === 'url') return { type: 'image_url', image_url: { url: src.url } };
  throw new TranslationError(`${field}.source must be a base64 or url image source`);
}

/** One Anthropic message as the chat messages it becomes (a user turn's tool results become `tool` messages first). */
function chatMessages(m: unknown, i: number): Json[] {
  const field = `messages[${i}]`;
  // Claude Code sends instructions mid-conversation as a `system` turn: chat has the same role.
  if (isObj(m) && m.role === 'system') return [{ role: 'system', content: textOf(m.content, `${field}.content`) }];
  if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant')) {
    throw new TranslationError(`${field}.role must be user, assistant or system`);
  }
  if (typeof m.content === 'string') return [{ role: m.role, content: m.content }];
  if (!Array.isArray(m.content)) throw new TranslationError(`${field}.content must be a string or an array of blocks`);
  const out: Json[] = [];
  const parts: Json[] = [];
  const toolCalls: Json[] = [];
  m.content.forEach((b: unknown, j: number) => {
    const bf = `${field}.content[${j}]`;
    if (!isObj(b)) throw new TranslationError(`${bf} must be a block object`);
    if (b.type === 'text') parts.push({ type: 'text', text: String(b.text ?? '') });
    else if (b.type === 'image') parts.push(imagePart(b, bf));
    else if (b.type === 'tool_use') {
      const args = JSON.stringify(b.input ?? {});
      toolCalls.push({ id: String(b.id), type: 'function', function: { name: String(b.name), arguments: args } });
    } else if (b.type === 'tool_result') {
      const text = textOf(b.content, `${bf}.content`);
      out.push({ role: 'tool', tool_call_id: String(b.tool_use_id), content: b.is_error ? `Error: ${text}` : text });
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      // a chat upstream has no thinking blocks to continue from
    } else throw new TranslationError(`${bf}.type ${JSON.stringify(b.type)} has no OpenAI chat equivalent`);
  });
  if (m.role === 'assistant') {
    const text = parts.map((p) => p.text ?? '').join('');
    if (text !== '' || toolCalls.length === 0) {
      out.push({ role: 'assistant', content: text, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) });
    } else out.push({ role: 'assistant', content: null, tool_calls: toolCalls });
  } else if (parts.length) {
    const plain = parts.every((p) => p.type === 'text');
    out.push({ role: 'user', content: plain ? parts.map((p) => p.text).join('') : parts });
  }
  return out;
}

function chatTool(t: unknown, i: number): Json {
  const field = `tools[${i}]`;
  if (!isObj(t) || typeof t.name !== 'string') throw new TranslationError(`${field}.name must be a string`);
  if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
    throw new TranslationError(
      `${field} is Anthropic's server tool ${JSON.stringify(t.type)}, which an OpenAI-compatible upstream cannot run`,
    );
  }
  const fn: Json = { name: t.name, parameters: isObj(t.input_schema) ? t.input_schema : { type: 'object' } };
  if (typeof t.description === 'string') fn.description = t.description;
  return { type: 'function', function: fn };
}

function toolChoice(c: unknown): unknown {
  if (!isObj(c)) return undefined;
  if (c.type === 'auto') return 'auto';
  if (c.type === 'any') return 'required';
  if (c.type === 'none') return 'none';
  if (c.type === 'tool') return { type: 'function', function: { name: String(c.name) } };
  throw new TranslationError(`tool_choice.type ${JSON.stringify(c.type)} is not auto, any, tool or none`);
}

/** The chat-completions body for an Anthropic `/v1/messages` body (model already the role's). */
export function toChatRequest(body: Json): Json {
  if (!Array.isArray(body.messages)) throw new TranslationError('messages must be an array');
  const messages: Json[] = [];
  const system = textOf(body.system, 'system');
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const [i, m] of (body.messages as unknown[]).entries()) messages.push(...chatMessages(m, i));
  const out: Json = { model: body.model, messages };
  if (typeof body.max_tokens === 'number') out.max_tokens = body.max_tokens;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length) out.stop = body.stop_sequences;
  if (Array.isArray(body.tools) && body.tools.length) out.tools = body.tools.map(chatTool);
  const choice = toolChoice(body.tool_choice);
  if (choice !== undefined && out.tools) out.tool_choice = choice;
  if (isObj(body.tool_choice) && body.tool_choice.disable_parallel_tool_use === true && out.tools) {
    out.parallel_tool_calls = false;
  }
  if (body.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}

/** Anthropic's error `type` for an HTTP status, as its API documents them. */
export function anthropicErrorType(status: number): string {
  if (status === 400 || status === 422 || status === 404) {
    return status === 404 ? 'not_found_error' : 'invalid_request_error';
  }
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529 || status === 503) return 'overloaded_error';
  return 'api_error';
}

/**
 * An Anthropic-shaped error body (`{"type":"error","error":{type,message}}`), which `@anthropic-ai/sdk` surfaces as an
 * `APIError`; heldout's machine-readable `code` rides along in `error.code`.
 */
export function anthropicErrorBody(type: string, message: string, code?: string | null): string {
  return JSON.stringify({ type: 'error', error: { type, message, ...(code ? { code } : {}) } });
}

/** An upstream OpenAI error body (any shape) re-said as Anthropic's, keeping its message. */
export function anthropicErrorFromChat(status: number, parsed: unknown): string {
  const e = isObj(parsed) && isObj(parsed.error) ? parsed.error : null;
  const message = typeof e?.message === 'string' ? e.message : `upstream answered ${status}`;
  return anthropicErrorBody(anthropicErrorType(status), message, typeof e?.code === 'string' ? e.code : null);
}
