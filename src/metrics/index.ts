export { type BootstrapOptions, bootstrapCI, mulberry32, seedFrom } from './bootstrap.js';
export { gapClosure } from './gap-closure.js';
export { passAtK, passAtKOverCases, passHatK, passHatKOverCases } from './pass-k.js';
export { signTest, winLossTie } from './sign-test.js';
export { macroMean, mean, median, quantileSorted } from './stats.js';
