/**
 * What `heldout init` writes: a commission package (commented commission.yaml and rubric.yaml, the four requirement
 * documents, one dev and one held-out case) and an example delivery that passes it. One maker per family.
 */

/** Files by path relative to their directory. */
export type Files = Record<string, string>;

export interface Skeleton {
  commission: Files;
  delivery: Files;
}

/** The parts of the four requirement documents that differ between skeletons. */
export interface RequirementText {
  title: string;
  goal: string;
  interface: string;
  requirements: string[];
  resources: string;
}

/** The four requirement documents (DESIGN §1: goal, interface and delivery, requirements, resources). */
export function requirementDocs(r: RequirementText): Files {
  const todo = '<!-- heldout init wrote this example; rewrite it for your commission. -->\n\n';
  return {
    'requirement/01_goal.md': `# 1. Goal\n\n${todo}${r.goal}\n`,
    'requirement/02_interface.md': `# 2. Interface and delivery\n\n${todo}${r.interface}\n`,
    'requirement/03_requirements.md': `# 3. Requirements and constraints\n\n${todo}${r.requirements
      .map((x, i) => `- **FR-${i + 1}.** ${x}`)
      .join('\n')}\n`,
    'requirement/04_resources.md': `# 4. Resources\n\n${todo}${r.resources}\n`,
  };
}

/**
 * A unified diff that replaces whole files (`git apply` takes it as it is): the simplest patch an editing
 * delivery can ship, exact whatever the files hold. Both texts must end with a newline.
 */
export function wholeFilePatch(changes: { path: string; before: string; after: string }[]): string {
  const lines = (t: string) => t.replace(/\n$/, '').split('\n');
  return changes
    .map(({ path, before, after }) => {
      const a = lines(before);
      const b = lines(after);
      return [
        `diff --git a/${path} b/${path}`,
        `--- a/${path}`,
        `+++ b/${path}`,
        `@@ -1,${a.length} +1,${b.length} @@`,
        ...a.map((l) => `-${l}`),
        ...b.map((l) => `+${l}`),
      ].join('\n');
    })
    .join('\n')
    .concat('\n');
}

/**
 * The counts a word-count style truth holds, by the creation skeleton's FR-1 and FR-2 (a line is ended by a newline,
 * a last piece without one counts too: the empty text has no line), as its example delivery computes them.
 */
export function wordsAndLines(text: string): { words: number; lines: number } {
  const newlines = text.split('\n').length - 1;
  return { words: text.split(/\s+/).filter(Boolean).length, lines: newlines + (text && !text.endsWith('\n') ? 1 : 0) };
}

/** JSON as the skeletons write it: two-space indent, a final newline. */
export const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
