import { parse as parseTomlText, TomlDate } from 'smol-toml';
import { pyJsonParse } from './json.js';
import { construct, type ModelSpec } from './model.js';
import { PyFloat, type PyModel, type PyValue, pyInt } from './values.js';

/** A TOML document as Python's `tomllib` gives it: ints and floats kept apart, tables as dicts in file order. */
export function pyTomlParse(text: string): PyValue {
  const raw = parseTomlText(text, { integersAsBigInt: true });
  const conv = (v: unknown): PyValue => {
    if (typeof v === 'bigint') return pyInt(v);
    if (typeof v === 'number') return new PyFloat(v);
    if (typeof v === 'string' || typeof v === 'boolean') return v;
    // The τ² data quotes its dates; a bare TOML date is kept as its ISO text, which pydantic parses alike.
    if (v instanceof TomlDate) return v.toISOString();
    if (Array.isArray(v)) return v.map(conv);
    const o = v as Record<string, unknown>;
    return new Map(Object.keys(o).map((k) => [k, conv(o[k])]));
  };
  return conv(raw);
}

/**
 * `Model.load(path)` of τ²'s `DB`: the file's text read as Python reads it (json.load, or tomllib for a `.toml`), then
 * `model_validate`. Throws pydantic's ValidationError for data the model refuses.
 */
export function loadModel(spec: ModelSpec, text: string, file: string): PyModel {
  const data = file.endsWith('.toml') ? pyTomlParse(text) : pyJsonParse(text);
  if (!(data instanceof Map)) throw new Error(`${file}: not a JSON/TOML object`);
  return construct(spec, data);
}
