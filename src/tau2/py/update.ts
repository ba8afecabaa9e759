import { construct, type FieldType, type ModelSpec, modelDump, ValidationError, validateAs } from './model.js';
import { deepCopy, type PyDict, PyModel, type PyValue } from './values.js';

// addict's Dict.update: a key both sides hold as dicts merges recursively; any other value replaces.
function merge(target: PyDict, update: PyDict): void {
  for (const [k, v] of update) {
    const cur = target.get(k);
    if (cur instanceof Map && v instanceof Map) merge(cur, v);
    else target.set(k, deepCopy(v));
  }
}

const innerModel = (type: FieldType): ModelSpec | undefined => (type.k === 'model' ? type.cls() : undefined);

/**
 * τ²'s `update_pydantic_model_with_dict(model, update)`: the model's dump merged with `update` as addict merges, then
 * validated again. Done per record: a record the update does not name keeps its (already validated) instance, which
 * is what re-validating its own dump would give; errors carry pydantic's whole location from the top model.
 */
export function updateModel(m: PyModel, update: PyDict): PyModel {
  try {
    return updateWithin(m, update, []);
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(m.cls.name, err.errors);
    throw err;
  }
}

function updateWithin(m: PyModel, update: PyDict, loc: (string | number)[]): PyModel {
  const spec = m.cls as ModelSpec;
  const f = { ...m.f };
  const rest = new Map<string, PyValue>();
  for (const [name, value] of update) {
    const field = spec.fields[name];
    const cur = f[name];
    if (!field || !(value instanceof Map)) {
      rest.set(name, value);
      continue;
    }
    const model = innerModel(field.type);
    if (model && cur instanceof PyModel && cur.cls === model) {
      f[name] = updateWithin(cur, value, [...loc, name]);
      continue;
    }
    const valueModel = field.type.k === 'dict' ? innerModel(field.type.val) : undefined;
    if (valueModel && cur instanceof Map) {
      const table = new Map(cur);
      for (const [id, rec] of value) {
        const old = table.get(id);
        if (old instanceof PyModel && old.cls === valueModel && rec instanceof Map)
          table.set(id, updateWithin(old, rec, [...loc, name, id]));
        else table.set(id, revalidate(valueModel, rec, [...loc, name, id]));
      }
      f[name] = table;
      continue;
    }
    rest.set(name, value);
  }
  if (!rest.size) return new PyModel(spec, f);
  // Anything else: this model's own dump, merged and validated whole (as τ² validates it).
  const dump = modelDump(new PyModel(spec, f)) as PyDict;
  merge(dump, rest);
  return prefixed(() => construct(spec, dump), loc);
}

const revalidate = (spec: ModelSpec, rec: PyValue, loc: (string | number)[]) =>
  validateAs({ k: 'model', cls: () => spec }, deepCopy(rec), spec.name, loc);

function prefixed<T>(run: () => T, loc: (string | number)[]): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ValidationError && loc.length)
      throw new ValidationError(
        err.title,
        err.errors.map((e) => ({ ...e, loc: [...loc, ...e.loc] })),
      );
    throw err;
  }
}
