/**
 * A case service that could not serve (issue 19): its image is missing, it never became ready, it died. The
 * evaluator's fault, never the delivery's: the run session records the case as an infra-error with this message,
 * which names the service and carries the tail of its log.
 */
export class ServiceError extends Error {
  constructor(
    readonly service: string,
    readonly problem: string,
    readonly logTail = '',
  ) {
    super(
      `service ${service}: ${problem}` +
        (logTail.trim() ? `\n--- ${service} log (last lines) ---\n${logTail.trimEnd()}` : ''),
    );
    this.name = 'ServiceError';
  }
}

/** The last `lines` lines of a log. */
export function logTail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
