export {
  type BootstrapOptions,
  bootstrapCI,
  bootstrapMeans,
  macroBootstrapCI,
  mulberry32,
  percentileCI,
  seedFrom,
  stratifiedBootstrapCI,
} from './bootstrap.js';
export { gapClosure } from './gap-closure.js';
export { type PairedDifference, pairedDifference } from './paired.js';
export { passAtK, passAtKOverCases, passHatK, passHatKOverCases } from './pass-k.js';
export { signTest, winLossTie } from './sign-test.js';
export { macroMean, mean, median, quantileSorted } from './stats.js';
