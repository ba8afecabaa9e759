/**
 * A Vitest reporter that prints nothing: `heldout dev` prints its own per-case feedback, and an empty reporter list
 * would make Vitest fall back to its default reporter.
 */
export default class QuietReporter {}
