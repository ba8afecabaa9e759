/**
 * A small TOML reader for the subset Harbor's `task.toml` uses (no TOML parser is installed): tables, dotted keys,
 * arrays of tables, basic/literal (and multi-line) strings, integers, floats, booleans, arrays, inline tables and
 * comments. Dates are kept as strings. Pure.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

/** A syntax error with its 1-based line. */
export class TomlError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'TomlError';
  }
}

const BARE = /[A-Za-z0-9_-]/;

/** Parses TOML text into plain objects; throws `TomlError` naming the line of the first problem. */
export function parseToml(text: string): TomlTable {
  return new Parser(text).document();
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private line(): number {
    let n = 1;
    for (let k = 0; k < this.i && k < this.s.length; k++) if (this.s[k] === '\n') n++;
    return n;
  }

  private fail(message: string): never {
    throw new TomlError(message, this.line());
  }

  private peek(offset = 0): string {
    return this.s[this.i + offset] ?? '';
  }

  private startsWith(t: string): boolean {
    return this.s.startsWith(t, this.i);
  }

  /** Skips spaces and tabs (and, when `newlines`, line breaks and comments). */
  private skip(newlines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t') this.i++;
      else if (c === '#') {
        while (this.i < this.s.length && this.peek() !== '\n') this.i++;
      } else if (newlines && (c === '\n' || c === '\r')) this.i++;
      else return;
    }
  }

  private endOfLine(): void {
    this.skip(false);
    const c = this.peek();
    if (c === '\r' && this.peek(1) === '\n') this.i += 2;
    else if (c === '\n') this.i++;
    else if (c !== '') this.fail(`unexpected ${JSON.stringify(c)} after a value`);
  }

  document(): TomlTable {
    const root: TomlTable = {};
    let current = root;
    const defined = new Set<string>();
    for (;;) {
      this.skip(true);
      if (this.i >= this.s.length) return root;
      if (this.startsWith('[[')) {
        this.i += 2;
        const keys = this.key();
        this.skip(false);
        if (!this.startsWith(']]')) this.fail('expected ]] closing an array-of-tables header');
        this.i += 2;
        this.endOfLine();
        const parent = this.descend(root, keys.slice(0, -1));
        const last = keys[keys.length - 1]!;
        if (parent[last] === undefined) parent[last] = [];
        const arr = parent[last];
        if (!Array.isArray(arr)) this.fail(`${keys.join('.')} is not an array of tables`);
        const table: TomlTable = {};
        arr.push(table);
        current = table;
      } else if (this.peek() === '[') {
        this.i++;
        const keys = this.key();
        this.skip(false);
        if (this.peek() !== ']') this.fail('expected ] closing a table header');
        this.i++;
        this.endOfLine();
        const name = keys.join('\u0000');
        if (defined.has(name)) this.fail(`table [${keys.join('.')}] defined twice`);
        defined.add(name);
        current = this.descend(root, keys);
      } else {
        this.keyValue(current);
        this.endOfLine();
      }
    }
  }

  /** The table at `keys` under `from`, created as needed; the last element of an array of tables is entered. */
  private descend(from: TomlTable, keys: string[]): TomlTable {
    let t = from;
    for (const k of keys) {
      if (t[k] === undefined) t[k] = {};
      let next = t[k];
      if (Array.isArray(next)) next = next[next.length - 1] as TomlValue;
      if (typeof next !== 'object' || next === null || Array.isArray(next)) this.fail(`${k} is not a table`);
      t = next as TomlTable;
    }
    return t;
  }

  private keyValue(into: TomlTable): void {
    const keys = this.key();
    this.skip(false);
    if (this.peek() !== '=') this.fail(`expected = after key ${keys.join('.')}`);
    this.i++;
    this.skip(false);
    const value = this.value();
    const table = this.descend(into, keys.slice(0, -1));
    const last = keys[keys.length - 1]!;
    if (Object.hasOwn(table, last)) this.fail(`key ${keys.join('.')} defined twice`);
    table[last] = value;
  }

  private key(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.skip(false);
      const c = this.peek();
      if (c === '"') keys.push(this.basicString());
      else if (c === "'") keys.push(this.literalString());
      else {
        const start = this.i;
        while (BARE.test(this.peek())) this.i++;
        if (this.i === start) this.fail('expected a key');
        keys.push(this.s.slice(start, this.i));
      }
      this.skip(false);
      if (this.peek() !== '.') return keys;
      this.i++;
    }
  }

  private value(): TomlValue {
    const c = this.peek();
    if (this.startsWith('"""')) return this.multiBasic();
    if (this.startsWith("'''")) return this.multiLiteral();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    if (this.startsWith('true')) return this.word('true', true);
    if (this.startsWith('false')) return this.word('false', false);
    return this.scalar();
  }

  private word<T>(w: string, v: T): T {
    this.i += w.length;
    return v;
  }

  private scalar(): number | string {
    const start = this.i;
    while (this.i < this.s.length && !/[\s,\]}#]/.test(this.peek())) this.i++;
    // A date-time may hold one space between date and time.
    if (/^\d{4}-\d{2}-\d{2}$/.test(this.s.slice(start, this.i)) && this.peek() === ' ' && /\d/.test(this.peek(1))) {
      this.i++;
      while (this.i < this.s.length && !/[\s,\]}#]/.test(this.peek())) this.i++;
    }
    const raw = this.s.slice(start, this.i);
    if (raw === '') this.fail('expected a value');
    if (/^\d{4}-\d{2}-\d{2}/.test(raw) || /^\d{2}:\d{2}/.test(raw)) return raw;
    if (/^[+-]?(inf|nan)$/.test(raw))
      return raw.endsWith('inf') ? (raw.startsWith('-') ? -Infinity : Infinity) : Number.NaN;
    const clean = raw.replace(/_/g, '');
    if (/^0x[0-9a-fA-F]+$/.test(clean)) return Number.parseInt(clean.slice(2), 16);
    if (/^0o[0-7]+$/.test(clean)) return Number.parseInt(clean.slice(2), 8);
    if (/^0b[01]+$/.test(clean)) return Number.parseInt(clean.slice(2), 2);
    if (/^[+-]?(\d+)(\.\d+)?([eE][+-]?\d+)?$/.test(clean)) return Number(clean);
    this.fail(`cannot read value ${JSON.stringify(raw)}`);
  }

  private array(): TomlValue[] {
    this.i++;
    const out: TomlValue[] = [];
    for (;;) {
      this.skip(true);
      if (this.peek() === ']') {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.skip(true);
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== ']') this.fail('expected , or ] in an array');
    }
  }

  private inlineTable(): TomlTable {
    this.i++;
    const out: TomlTable = {};
    this.skip(false);
    if (this.peek() === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.keyValue(out);
      this.skip(false);
      if (this.peek() === ',') {
        this.i++;
        continue;
      }
      if (this.peek() === '}') {
        this.i++;
        return out;
      }
      this.fail('expected , or } in an inline table');
    }
  }

  private literalString(): string {
    this.i++;
    const end = this.s.indexOf("'", this.i);
    const nl = this.s.indexOf('\n', this.i);
    if (end < 0 || (nl >= 0 && nl < end)) this.fail('unterminated literal string');
    const v = this.s.slice(this.i, end);
    this.i = end + 1;
    return v;
  }

  private multiLiteral(): string {
    this.i += 3;
    if (this.peek() === '\n') this.i++;
    else if (this.startsWith('\r\n')) this.i += 2;
    const end = this.s.indexOf("'''", this.i);
    if (end < 0) this.fail('unterminated multi-line literal string');
    const v = this.s.slice(this.i, end);
    this.i = end + 3;
    return v;
  }

  private basicString(): string {
    this.i++;
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') this.fail('unterminated string');
      this.i++;
      if (c === '"') return out;
      out += c === '\\' ? this.escape() : c;
    }
  }

  private multiBasic(): string {
    this.i += 3;
    if (this.peek() === '\n') this.i++;
    else if (this.startsWith('\r\n')) this.i += 2;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('unterminated multi-line string');
      if (this.startsWith('"""')) {
        this.i += 3;
        // Up to two quotes may close the content right before the delimiter.
        for (let k = 0; k < 2 && this.peek() === '"'; k++) {
          out += '"';
          this.i++;
        }
        return out;
      }
      const c = this.peek();
      this.i++;
      if (c === '\\') {
        // A line-ending backslash trims the break and the white space after it.
        if (/^[ \t]*\r?\n/.test(this.s.slice(this.i))) {
          while (/\s/.test(this.peek())) this.i++;
        } else out += this.escape();
      } else out += c;
    }
  }

  private escape(): string {
    const e = this.peek();
    this.i++;
    switch (e) {
      case 'b':
        return '\b';
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'f':
        return '\f';
      case 'r':
        return '\r';
      case 'e':
        return '\u001b';
      case '"':
        return '"';
      case '\\':
        return '\\';
      case 'u':
      case 'U': {
        const n = e === 'u' ? 4 : 8;
        const hex = this.s.slice(this.i, this.i + n);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) this.fail(`bad unicode escape \\${e}${hex}`);
        this.i += n;
        return String.fromCodePoint(Number.parseInt(hex, 16));
      }
      default:
        this.fail(`unknown escape \\${e}`);
    }
  }
}
