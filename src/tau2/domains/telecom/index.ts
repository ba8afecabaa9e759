import { defineKit } from '../kit.js';
import type { Line, TelecomDb } from './db.js';
import { telecomRules } from './rules.js';
import { telecomDomainTools } from './sync.js';
import { telecomSynthesis } from './synthesis.js';
import type { TelecomWalkState } from './walk.js';

export type * from './db.js';

/**
 * τ²'s telecom domain: the agent's tools over `db.toml` and the user's tools on their phone over `user_db.toml`,
 * synced as τ²'s TelecomEnvironment syncs them; every TASTE stage and the tool-agent family run on it.
 */
export const telecom = defineKit<TelecomDb, Line, TelecomWalkState>({
  name: 'telecom',
  tools: telecomDomainTools,
  rules: telecomRules,
  synthesis: telecomSynthesis,
});
