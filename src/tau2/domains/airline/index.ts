import { defineKit } from '../kit.js';
import { airlineRules } from './rules.js';
import { airlineSynthesis } from './synthesis.js';
import { airlineDomainTools } from './tools.js';

export type * from './db.js';

/** τ²'s airline domain: flights, users and reservations; every TASTE stage and the tool-agent family run on it. */
export const airline = defineKit({
  name: 'airline',
  tools: airlineDomainTools,
  rules: airlineRules,
  synthesis: airlineSynthesis,
});
