import {
  type Db,
  domainKit,
  type Synthesis,
  type ToolArgs,
  Unfit,
  type Walk,
  type WalkContext,
} from '../../tau2/index.js';

const NOTHING: ReadonlySet<string> = new Set();

/**
 * The stage-3 walk of one subject through a sequence, the same for every domain: it keeps which entities lookups
 * returned and writes touched, answers the kit's lookup tool itself and asks the kit's `WalkRules` for the rest.
 */
export class EntityWalk<D, E, S> implements Walk<D, E, S> {
  readonly state: S;
  focus: string | undefined;
  readonly looked = new Set<string>();
  // A plain object, not a Map: airline lists touched ids in Object.keys order (integer-like ids first), and the
  // generated tasks of a seed must stay what they are.
  private readonly touched: Record<string, Set<string>> = {};

  constructor(
    private readonly synthesis: Synthesis<D, E, S>,
    readonly ctx: WalkContext<D>,
    readonly subject: string,
  ) {
    this.state = synthesis.walk.start(ctx, subject);
  }

  private id(e: E): string {
    return (e as Record<string, string>)[this.synthesis.entity.idArg];
  }

  private done(e: E): ReadonlySet<string> {
    return this.touched[this.id(e)] ?? NOTHING;
  }

  private prefers(tool: string, e: E): boolean {
    const rules = this.synthesis.walk;
    return (rules.prefers ?? rules.fits)(tool, e, this.done(e));
  }

  touchedIds(): string[] {
    return Object.keys(this.touched);
  }

  entity(id: string): E | undefined {
    const { lookup, idArg, lookupArg } = this.synthesis.entity;
    const r = this.ctx.env.call(lookup, { [lookupArg ?? idArg]: id });
    return r.ok ? (r.result as E) : undefined;
  }

  private entities(): E[] {
    return this.synthesis.walk.ids(this).flatMap((id) => this.entity(id) ?? []);
  }

  target(tool: string, index: number): E {
    if (this.focus) {
      const e = this.entity(this.focus);
      if (e && this.prefers(tool, e)) return e;
    }
    const all = this.entities().filter((e) => this.synthesis.walk.fits(tool, e, this.done(e)));
    const pick = all.find((e) => !this.touched[this.id(e)]) ?? all[0];
    if (!pick)
      throw new Unfit(tool, index, `user ${this.subject} has no ${this.synthesis.entity.kind} that ${tool} may act on`);
    return pick;
  }

  nextWrite(index: number): string | undefined {
    return this.ctx.sequence.slice(index + 1).find((t) => this.synthesis.walk.writes.has(t));
  }

  mark(id: string, tool: string): void {
    const set = this.touched[id] ?? new Set<string>();
    set.add(tool);
    this.touched[id] = set;
    this.focus = id;
  }

  /** Candidate argument sets for call `index`, best first; the first that executes without a tool error is kept. */
  candidates(index: number): ToolArgs[] {
    const tool = this.ctx.sequence[index];
    const { lookup, idArg, lookupArg, kind } = this.synthesis.entity;
    if (tool !== lookup) return this.synthesis.walk.candidates(this, tool, index);
    // A lookup shows an entity not yet seen, preferably one the next write may act on.
    const write = this.nextWrite(index);
    const all = this.entities();
    const unseen = all.filter((e) => !this.looked.has(this.id(e)));
    const suits = (e: E) => !write || this.prefers(write, e);
    const order = [...unseen.filter(suits), ...unseen, ...all.filter(suits), ...all];
    if (!order.length) throw new Unfit(tool, index, `user ${this.subject} has no ${kind}`);
    return [{ [lookupArg ?? idArg]: this.id(order[0]) }];
  }

  /** Called with the call that succeeded, so the walk and the kit update their state and the scenario notes. */
  accept(index: number, args: ToolArgs, result: unknown): void {
    const tool = this.ctx.sequence[index];
    const { lookup, idArg, lookupArg } = this.synthesis.entity;
    if (tool === lookup) {
      this.looked.add(args[lookupArg ?? idArg]);
      this.focus = args[lookupArg ?? idArg];
    }
    const note = this.synthesis.walk.accept(this, tool, args, result);
    if (!note) return;
    const n = this.ctx.notes;
    n.intents.push(note.intent);
    if (note.tell !== undefined) n.communicate.push(note.tell);
    if (note.purpose !== undefined) n.purpose.push(note.purpose);
  }

  /** Final touches to the scenario once every call succeeded. */
  finish(): void {
    this.synthesis.walk.finish(this);
  }
}

/** Starts the walk of `subject` on `ctx.domain`'s kit; throws when the kit has no stage 3. */
export function startWalk(ctx: WalkContext<Db>, subject: string): EntityWalk<Db, unknown, unknown> {
  const synthesis = domainKit(ctx.domain.name).synthesis;
  if (!synthesis) throw new Error(`domain ${ctx.domain.name} has no stage-3 walk`);
  return new EntityWalk(synthesis, ctx, subject);
}
