import path from 'node:path';
import { parseServiceMap } from '../commission/index.js';
import { readPricing } from '../gateway/index.js';
import { relayedUrl } from '../run/index.js';
import { parseImageMap } from '../sandbox/index.js';
import { type Options, UsageError } from './command.js';

// Reading a command's options. Every problem is a UsageError naming the option, so `heldout` exits 2 with one line
// saying what was expected and what was given.

/** A command's options by kind, as minimist and yargs-parser take them: numbers are declared as strings. */
export interface OptionKinds {
  /** Options taking one value (numbers too: they are read with `numberOption` / `integerOption`). */
  string?: readonly string[];
  /** Options that may be repeated, each adding a value. */
  strings?: readonly string[];
  /** Flags. */
  boolean?: readonly string[];
}

/** The parseArgs table for the options named; a name in two kinds keeps the last. */
export function declareOptions(kinds: OptionKinds): Options {
  const options: Options = {};
  for (const name of kinds.string ?? []) options[name] = { type: 'string' };
  for (const name of kinds.strings ?? []) options[name] = { type: 'string', multiple: true };
  for (const name of kinds.boolean ?? []) options[name] = { type: 'boolean' };
  return options;
}

/** A string option's value, or undefined when it was not given. */
export function stringOption(values: Record<string, unknown>, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A string option the command cannot do without: `<command>: --<name> <meta> is required` when absent. */
export function requiredString(values: Record<string, unknown>, name: string, command: string, meta: string): string {
  const v = stringOption(values, name);
  if (v === undefined) throw new UsageError(`${command}: --${name} ${meta} is required`);
  return v;
}

/** What a number option must be, in words, with an example of a good value. */
function expectedNumber(name: string, what: string, min: number, fallback: number): string {
  const bound = Number.isFinite(min) ? ` ≥ ${min}` : '';
  const example = Number.isFinite(fallback) && fallback >= min ? fallback : Number.isFinite(min) ? min : 0;
  return `expected ${what}${bound} (for example --${name} ${example})`;
}

/** Reads a numeric option, refusing anything that is not a number in range. */
export function numberOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = String(raw).trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(n) || n < min)
    throw new UsageError(`--${name}: ${expectedNumber(name, 'a number', min, fallback)}, got ${String(raw)}`);
  return n;
}

/** A whole-number option (counts, sizes): `2.5` is refused, not silently rounded. */
export function integerOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const raw = values[name];
  const n = String(raw ?? '').trim() === '' ? Number.NaN : Number(raw);
  if (raw !== undefined && (!Number.isInteger(n) || n < min))
    throw new UsageError(`--${name}: ${expectedNumber(name, 'a whole number', min, fallback)}, got ${String(raw)}`);
  return raw === undefined ? fallback : n;
}

/** `numberOption` for an option without a default of its own: undefined when it was not given. */
export function optionalNumber(values: Record<string, unknown>, name: string, min = 0): number | undefined {
  return values[name] === undefined ? undefined : numberOption(values, name, 0, min);
}

/** `integerOption` for an option without a default of its own: undefined when it was not given. */
export function optionalInteger(values: Record<string, unknown>, name: string, min = 0): number | undefined {
  return values[name] === undefined ? undefined : integerOption(values, name, 0, min);
}

/** `--image-map from=to` (repeatable) as a map; undefined when not given; a bad pair is a UsageError naming it. */
export function imageMapOption(values: Record<string, unknown>): Record<string, string> | undefined {
  const raw = values['image-map'];
  if (raw === undefined) return undefined;
  const { map, problems } = parseImageMap(Array.isArray(raw) ? (raw as string[]) : [String(raw)]);
  if (problems.length) throw new UsageError(`--image-map: ${problems.join('; ')}`);
  return map;
}

/** `--service name=<url|command>` (repeatable) as a map; undefined when not given; a bad pair is a UsageError. */
export function serviceOption(values: Record<string, unknown>): Record<string, string> | undefined {
  const raw = values.service;
  if (raw === undefined) return undefined;
  const { map, problems } = parseServiceMap(Array.isArray(raw) ? (raw as string[]) : [String(raw)]);
  for (const [name, value] of Object.entries(map)) {
    try {
      relayedUrl(name, value);
    } catch (err) {
      problems.push((err as Error).message.replace(/^--service /, ''));
    }
  }
  if (problems.length) throw new UsageError(`--service: ${problems.join('; ')}`);
  return map;
}

/** `--pricing <file>`, read and checked now (absolute path); undefined when not given; a bad file is a UsageError. */
export function pricingOption(values: Record<string, unknown>): string | undefined {
  const file = values.pricing;
  if (typeof file !== 'string') return undefined;
  try {
    const abs = path.resolve(file);
    readPricing(abs);
    return abs;
  } catch (err) {
    throw new UsageError(`--pricing: ${(err as Error).message}`);
  }
}
