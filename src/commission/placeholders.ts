/**
 * The `{name}` placeholders a commission's commands may use, and what each expands to. The sandbox fills them in
 * (`fillPlaceholders`); validation refuses any other name, since an unknown one reaches the shell verbatim and
 * every case then fails `error-exit`.
 */
export const ENTRY_PLACEHOLDERS = {
  input: 'the path of the case’s input.md (read-only; docker: /case/input.md). Assets are beside it in assets/',
  output: 'the output directory, the only writable place (docker: /out); the artifacts go here',
  run: 'a scratch directory inside the output directory (docker: /out/.run), for logs and intermediate files',
  case: 'the case directory holding input.md and assets/ (read-only; docker: /case)',
  delivery: 'the delivery directory, which is also the working directory (read-only; docker: /delivery)',
} as const;

/**
 * Evaluator commands (a `command` check, `editing.regression.command`) also see `{tree}`: the patched starter tree
 * of an editing case (the delivery otherwise). `{output}` is a scratch copy of the case's outputs there.
 */
export const COMMAND_PLACEHOLDERS = {
  ...ENTRY_PLACEHOLDERS,
  tree: 'editing: the patched starter tree (read-only); otherwise the delivery',
} as const;

export type PlaceholderName = keyof typeof COMMAND_PLACEHOLDERS;

/**
 * The `{name}` placeholders in a command. `${NAME}` (a shell variable) and braces holding anything but a word
 * (`awk '{print $1}'`, `{a,b}`) are not placeholders and are left out. Pure.
 */
export function placeholdersIn(command: string): string[] {
  return [...command.matchAll(/(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}
