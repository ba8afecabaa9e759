/** τ²'s environment: a live database with a kit's tools, hashed as τ² does, and the toolkit semantics it runs. */
export {
  createEnvironment,
  initialDb,
  initialModelOf,
  runEnvAssertion,
  toJsonStr,
} from './environment.js';
export { DEFAULT_SEMANTICS, SEMANTICS, type Semantics } from './toolkit.js';
