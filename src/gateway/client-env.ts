/**
 * The variables each kind of agent client reads to find its model, all pointing at the gateway with the case's
 * placeholder key: OpenAI's SDKs and CLIs (`OPENAI_*`), the OpenAI Agents SDK (`OPENAI_DEFAULT_MODEL`, tracing off:
 * it would otherwise post traces to OpenAI, which no sandbox reaches) and Anthropic's (`ANTHROPIC_*`; their base URL
 * has no `/v1`, the clients add `/v1/messages` themselves).
 */

/** The delivery's environment for one case: `root` is the gateway's address without `/v1`, if it has one here. */
export function clientEnv(token: string, root: string | undefined, model: string | undefined): Record<string, string> {
  const env: Record<string, string> = {
    OPENAI_API_KEY: token,
    ANTHROPIC_API_KEY: token,
    OPENAI_AGENTS_DISABLE_TRACING: '1',
  };
  if (root) {
    env.OPENAI_BASE_URL = `${root}/v1`;
    env.ANTHROPIC_BASE_URL = root;
  }
  if (model) {
    env.OPENAI_MODEL = model;
    env.OPENAI_DEFAULT_MODEL = model;
    env.ANTHROPIC_MODEL = model;
  }
  return env;
}
