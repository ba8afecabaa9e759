/** The check kinds' public face: each kind lives in checks/ and is dispatched through its registry. */
export * from './checks/index.js';
