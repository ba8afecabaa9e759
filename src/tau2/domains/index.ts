/** τ²'s worlds (one folder each, a `DomainKit`), the kit's shape and the registry that names them. */
export type { AirlineDb } from './airline/db.js';
export { calculate } from './calculate.js';
export {
  type CallNote,
  type DecoyMaker,
  type DomainKit,
  type EntityKind,
  type InstantiatedCall,
  type Random,
  type ScenarioNotes,
  type Synthesis,
  spoken,
  type TaskCriteria,
  Unfit,
  type Walk,
  type WalkContext,
  type WalkRules,
} from './kit.js';
export { type DomainName, domainKit, domainKits, domainTools, executableDomains, findKit } from './registry.js';
export type { RetailDb } from './retail/db.js';
export type { DomainRules, EntityEffect, ToolRule } from './rule-types.js';
export type { TelecomDb, TelecomUserDb } from './telecom/db.js';
