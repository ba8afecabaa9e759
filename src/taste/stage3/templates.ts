import type { DomainKit, ScenarioNotes, UserInstructions } from '../../tau2/index.js';

/**
 * τ² user instructions from the notes an instantiation collected (pure): the first intent is the reason for the
 * call, the rest follow in gold order in the task instructions, with how to behave once everything is done.
 */
export function scenarioFromNotes(kit: Pick<DomainKit, 'name' | 'synthesis'>, notes: ScenarioNotes): UserInstructions {
  const [first, ...rest] = notes.intents;
  const steps = rest.map((s, k) => `${k + 2}. ${s}`);
  const tail = notes.communicate.length
    ? 'Make sure the agent tells you every answer you asked for before you end the conversation.'
    : 'Once everything is done, thank the agent and end the conversation.';
  return {
    domain: kit.name,
    reason_for_call: `${kit.synthesis?.opener ?? 'You are contacting customer service.'} ${first ?? ''}`.trim(),
    known_info: notes.known.join('\n') || null,
    unknown_info: notes.unknown.join('\n') || null,
    task_instructions: [
      'Bring up one request at a time, in this order:',
      `1. ${first ?? 'Your request above.'}`,
      ...steps,
      'Confirm each change when the agent lists its details. Do not ask for anything else.',
      tail,
    ].join('\n'),
  };
}
