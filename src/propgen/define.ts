import type { z } from 'zod';
import type { PropertiesDecl, Rng } from './types.js';

/** Identity helper for a commission's `properties.ts`: `export default defineProperties({...})`, typed by its schema. */
export function defineProperties<S extends z.ZodType>(decl: PropertiesDecl<S>): PropertiesDecl<S> {
  return decl;
}

/** A small seeded PRNG (mulberry32) for metamorphic transforms: the same seed gives the same follow-up input. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n) };
}
