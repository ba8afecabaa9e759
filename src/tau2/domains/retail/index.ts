import { defineKit } from '../kit.js';
import { retailRules } from './rules.js';
import { retailSynthesis } from './synthesis.js';
import { retailDomainTools } from './tools.js';

export type * from './db.js';

/** τ²'s retail domain: products, users and orders; every TASTE stage and the tool-agent family run on it. */
export const retail = defineKit({
  name: 'retail',
  tools: retailDomainTools,
  rules: retailRules,
  synthesis: retailSynthesis,
});
