/** τ²'s orchestrator: one episode of agent, user and environment, to its termination. */
export { type EpisodeOptions, type EpisodeResult, runEpisode, type Termination } from './episode.js';
