// Benchmark files open with data-provenance markers ("canary" strings) that must not be shown to an agent. This is
// Harbor's `strip_canary` (models/task/task.py): leading lines that are an HTML comment or a hash comment mentioning
// "canary" (case-insensitive), then the blank lines right after them, are removed; nothing else is touched.
const CANARY_LINE = /^(<!--.*canary.*-->|#.*canary.*)$/i;

/** The instruction text as an agent sees it under Harbor: leading canary comment lines and the blank lines after them removed. */
export function stripCanary(text: string): string {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && CANARY_LINE.test(lines[i]!.trim())) i++;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  return lines.slice(i).join('\n');
}
