import { FAMILIES, type Family } from '../../commission/index.js';
import { creation } from './creation.js';
import { editing } from './editing/index.js';
import { harbor } from './harbor/index.js';
import { optimization } from './optimization.js';
import { toolAgent } from './tool-agent/index.js';
import type { FamilyStrategy } from './types.js';

/** Every family's strategy under its name; keyed by commission's `Family`, so a new family must be added here. */
export const FAMILY_STRATEGIES: { readonly [F in Family]: FamilyStrategy } = {
  creation,
  editing,
  optimization,
  'tool-agent': toolAgent,
  harbor,
};

/** The strategy of the family `name`; an unknown name throws, naming the known ones and where to register more. */
export function familyStrategy(name: string): FamilyStrategy {
  if (Object.hasOwn(FAMILY_STRATEGIES, name)) return FAMILY_STRATEGIES[name as Family];
  throw new Error(
    `unknown family "${name}": heldout knows ${FAMILIES.join(', ')} (a family is registered in src/grading/families/index.ts)`,
  );
}

export { applyPatchOnce } from './editing/index.js';
export type * from './types.js';
