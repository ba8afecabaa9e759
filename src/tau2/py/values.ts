/**
 * The values of heldout's Python world: what τ²-bench's tools see and store, with the distinctions Python makes and
 * JSON in JavaScript loses. An int is a JS `number` (a `bigint` beyond 2^53), a float is always boxed (`PyFloat`, so
 * `2.0` is never `2`), a dict is a `Map` (insertion order, even for keys like "1008292230"), a pydantic model
 * instance is a `PyModel` whose fields hold whatever was assigned to them, as in Python.
 */

/** A Python float; boxed so that an integral float (`56.0`) stays a float. */
export class PyFloat {
  constructor(readonly v: number) {}
  /** Lets plain arithmetic and comparisons read the number (never used for Python semantics). */
  valueOf(): number {
    return this.v;
  }
  /** Plain JSON sees the number. */
  toJSON(): number {
    return this.v;
  }
}

/** A Python dict. Keys are strings: JSON gives nothing else, and τ²'s enum keys are str enums. */
export type PyDict = Map<string, PyValue>;

/** A Python tuple (τ²'s tools return few; `to_json_str` keeps them). */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** A member of one of τ²'s `(str, Enum)` classes: equal to its value, dumped as it. */
export class PyEnumMember {
  constructor(
    readonly enumName: string,
    readonly name: string,
    readonly value: string,
  ) {}
}

/** `datetime.date`. */
export class PyDate {
  constructor(
    readonly y: number,
    readonly m: number,
    readonly d: number,
  ) {}
}

/** `datetime.datetime` (naive, or UTC as pydantic parses a trailing `Z`). */
export class PyDateTime {
  constructor(
    readonly y: number,
    readonly m: number,
    readonly d: number,
    readonly hh = 0,
    readonly mm = 0,
    readonly ss = 0,
    readonly us = 0,
    readonly utc = false,
  ) {}
}

/** The part of a model class the value layer needs; `model.ts` defines the rest. */
export interface ModelClass {
  readonly name: string;
  readonly fieldNames: readonly string[];
}

/** An instance of a pydantic model: field values in declaration order, assigned without validation as in Python. */
export class PyModel {
  constructor(
    readonly cls: ModelClass,
    readonly f: Record<string, PyValue>,
  ) {}
  get(name: string): PyValue {
    return this.f[name] as PyValue;
  }
  set(name: string, value: PyValue): void {
    this.f[name] = value;
  }
}

export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | PyValue[]
  | PyDict
  | PyTuple
  | PyModel
  | PyEnumMember
  | PyDate
  | PyDateTime;

/** A Python float value. */
export const pyFloat = (v: number) => new PyFloat(v);

/** A Python int from a JS integer or bigint, as a `number` whenever it is exact. */
export function pyInt(v: number | bigint): number | bigint {
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  return Object.is(v, -0) ? 0 : v;
}

export const isInt = (v: PyValue): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
/** int, float or bool: what Python arithmetic takes as a number. */
export const isNumber = (v: PyValue): v is number | bigint | boolean | PyFloat =>
  typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyFloat;
export const isStr = (v: PyValue): v is string => typeof v === 'string';
export const isList = (v: PyValue): v is PyValue[] => Array.isArray(v);
export const isDict = (v: PyValue): v is PyDict => v instanceof Map;
export const isModel = (v: PyValue, name?: string): v is PyModel =>
  v instanceof PyModel && (name === undefined || v.cls.name === name);
/** `isinstance(v, str)`: a str or a member of a str enum. */
export const isStrLike = (v: PyValue): v is string | PyEnumMember => typeof v === 'string' || v instanceof PyEnumMember;

/** `type(v).__name__`. */
export function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return 'int';
    case 'string':
      return 'str';
  }
  if (v instanceof PyFloat) return 'float';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'dict';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PyModel) return v.cls.name;
  if (v instanceof PyEnumMember) return v.enumName;
  if (v instanceof PyDateTime) return 'datetime';
  if (v instanceof PyDate) return 'date';
  return 'object';
}

/** The value as a JS number (bool and int included); only for values already known to be numbers. */
export function numberOf(v: number | bigint | boolean | PyFloat): number {
  if (v instanceof PyFloat) return v.v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return Number(v);
}

/** `copy.deepcopy`: containers and models copied, enum members and immutable scalars shared. */
export function deepCopy<T extends PyValue>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return (v as PyValue[]).map(deepCopy) as T;
  if (v instanceof Map) {
    const m: PyDict = new Map();
    for (const [k, x] of v as PyDict) m.set(k, deepCopy(x));
    return m as T;
  }
  if (v instanceof PyModel) {
    const f: Record<string, PyValue> = {};
    for (const k of Object.keys(v.f)) f[k] = deepCopy(v.f[k]);
    return new PyModel(v.cls, f) as T;
  }
  if (v instanceof PyTuple) return new PyTuple(v.items.map(deepCopy)) as T;
  return v;
}
