/** τ²'s evaluator: the reward of an episode and the gold actions replayed to judge it. */
export {
  assistantGold,
  auditGold,
  type GoldReplay,
  goldActions,
  goldEnvironment,
  replayGold,
  requestorOf,
} from './gold-replay.js';
export {
  actionMatches,
  communicated,
  computeReward,
  DEFAULT_REWARD_BASIS,
  type RewardInput,
  type TrajectoryCall,
} from './reward.js';
