import { getPath } from '../json-path.js';
import { readOutputFile } from '../outputs.js';
import { CheckSetupError, OutputError } from './context.js';

/** An output file's text; a missing or unreadable one is an `OutputError`. */
export function readOutput(outputDir: string, rel: string): string {
  const read = readOutputFile(outputDir, rel);
  if (!read.ok) throw new OutputError(read.reason);
  return read.bytes.toString('utf8');
}

/** An output file parsed as JSON; invalid JSON is an `OutputError` naming the file. */
export function readOutputJson(outputDir: string, rel: string): unknown {
  const text = readOutput(outputDir, rel);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new OutputError(`${rel} is not valid JSON (${(err as Error).message})`);
  }
}

/** The item's expected value: its literal, or its path into truth.json (missing is the evaluator's fault). */
export function expectedOf(
  item: { expected: { value: unknown } | { truth: string } },
  truth: Record<string, unknown> | null,
): unknown {
  if ('value' in item.expected) return item.expected.value;
  const p = item.expected.truth;
  if (!truth) throw new CheckSetupError(`the case has no truth.json (needed for truth path ${p})`);
  const got = getPath(truth, p);
  if (!got.found) throw new CheckSetupError(`truth.json has no path ${p}`);
  return got.value;
}

/** The value at a dotted path of an output JSON file; an absent path is the delivery's fault. */
export function valueAt(outputDir: string, file: string, dotted: string): unknown {
  const got = getPath(readOutputJson(outputDir, file), dotted);
  if (!got.found) throw new OutputError(`${file} has no ${dotted || '(root)'}`);
  return got.value;
}

/** `file:path`, or the file alone for the root, as evidence names a location. */
export const loc = (file: string, p: string) => (p ? `${file}:${p}` : file);
