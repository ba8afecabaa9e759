/**
 * Neutral helpers every part may import (and that import no part): atomic writes, sandbox-readable temp
 * directories, an abortable sleep, shell quoting, benchmark canary lines stripped from an instruction, the one glob.
 */
export { writeFileAtomic, writeFileAtomicSync } from './atomic-write.js';
export { stripCanary } from './canary.js';
export { type GlobOptions, globToRegExp, matchesAny } from './glob.js';
export { dottedPathProblem, getPath } from './json-path.js';
export { shQuote } from './sh-quote.js';
export { sleep } from './sleep.js';
export { closest, editDistance } from './suggest.js';
export { sandboxTempDir, sandboxTempDirAsync } from './temp-dir.js';
