/** τ²'s user simulation: the scripted and the LLM-backed user, and the prompt they share with τ². */
export {
  instructionText,
  type LlmUserOptions,
  llmUser,
  OUT_OF_SCOPE,
  type ScriptedUserOptions,
  STOP,
  scriptedUser,
  TRANSFER,
  USER_GUIDELINES,
  type UserSimulator,
  userSystemPrompt,
} from './user-simulators.js';
