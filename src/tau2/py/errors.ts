/**
 * A Python exception raised by heldout's port of a τ² tool: `type` is its class name, `text` is `str(e)`, which τ²
 * hands the agent as `Error: {e}`.
 */
export class PyException extends Error {
  constructor(
    readonly type: string,
    readonly text: string,
  ) {
    super(text);
    this.name = `Py${type}`;
  }
}

export const pyTypeError = (text: string) => new PyException('TypeError', text);
export const pyValueError = (text: string) => new PyException('ValueError', text);
export const pyAttributeError = (text: string) => new PyException('AttributeError', text);
export const pyZeroDivision = (text: string) => new PyException('ZeroDivisionError', text);
export const pyOverflow = (text: string) => new PyException('OverflowError', text);
export const pyAssertion = (text = '') => new PyException('AssertionError', text);
/** `KeyError(key)`, whose `str` is the key's repr. */
export const pyKeyError = (keyRepr: string) => new PyException('KeyError', keyRepr);

/** `AttributeError: '<type>' object has no attribute '<name>'`. */
export const noAttribute = (type: string, name: string) =>
  pyAttributeError(`'${type}' object has no attribute '${name}'`);
