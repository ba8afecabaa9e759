/** A refusal by a domain tool; the environment turns it into `{ ok: false, error }`, never a crash. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
