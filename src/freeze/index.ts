export { DEFAULT_EXCLUDE, scanTree, type TreeEntry, type TreeOptions, type TreeScan, treeDigest } from './digest.js';
export {
  defaultEnvironment,
  describeChanges,
  diffTrees,
  environmentDigest,
  FREEZE_POLICIES,
  type FreezeManifest,
  FreezeMismatchError,
  type FreezePolicy,
  readFreeze,
  type TreeChanges,
  treeListing,
  verifyFreeze,
  type WriteFreezeOptions,
  writeFreeze,
} from './manifest.js';
