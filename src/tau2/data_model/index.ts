/** τ²'s data model: a domain's tasks, tools and gold sequences as read from its data directory, and their types. */
export { goldFromTasks, parseGold, readGoldFile } from './gold-sequences.js';
export { loadDomain } from './load-domain.js';
export { parseTau2Json, readTasksFile, tau2JsonText } from './tasks-json.js';
export { isWriteTool, openAiToolSchemas, readToolsFile, toolGroup } from './tool-spec.js';
export * from './types.js';
