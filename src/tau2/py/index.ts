/** The Python-semantics runtime τ²'s tools run on (ints and floats apart, `json.dumps`, `repr`, pydantic models). */
export { pyJsonDumps, pyJsonParse } from './json.js';
export { plainJson } from './plain.js';
export { PyFloat } from './values.js';
