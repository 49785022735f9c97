// Type declarations of the wfrun script API (docs/script-api.md).
//
// A workflow script is plain JavaScript; these declarations only help an
// editor or a type checker. Reference them from a script with
//   /// <reference path="path/to/workflow.d.ts" />
// and compile with the ES library only, since the sandbox has no DOM:
//   tsc --noEmit --allowJs --checkJs --lib es2022 --target es2022 script.js
// tsc will still object to a top-level `return`, and to top-level `await` in
// a script without `export const meta`; wfrun allows both, since the script
// body runs as an async function. The file declares globals, so it
// has no imports or exports.

/** JSON data: what args, schema answers and a script's return value are made of. */
type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/**
 * A JSON Schema for a structured answer. Its root must accept objects: no
 * "type", "object" or ["object"] (typed as string so that a schema held in a
 * plain JavaScript const type-checks; the engine checks it at run time).
 */
interface JSONSchema {
  type?: string | string[];
  properties?: { [name: string]: JSONSchemaNode };
  required?: string[];
  additionalProperties?: boolean | JSONSchemaNode;
  $defs?: { [name: string]: JSONSchemaNode };
  [keyword: string]: unknown;
}

/** A JSON Schema below the root: any JSON Schema keyword. */
interface JSONSchemaNode {
  type?: string | string[];
  [keyword: string]: unknown;
}

/** One entry of meta.phases. */
interface WorkflowPhase {
  /** The phase's name, as passed to phase(title). Not blank. */
  title: string;
  /** What happens in this phase. */
  detail?: string;
  /** Default model of the agents of this phase (wins over meta.model; an agent's own model option wins over it). */
  model?: string;
}

/**
 * The workflow's description, known before any code runs. Write it as the
 * first statement, as a pure literal:
 *   export const meta = { name: 'my-workflow', description: 'what it does' }
 * or pass it in the request (--meta). Unknown fields are warnings.
 */
interface WorkflowMeta {
  /** 1 to 64 letters, digits, '-', '_' or '.'. */
  name: string;
  /** What the workflow does. Not blank. */
  description: string;
  /** When a caller should choose this workflow. */
  whenToUse?: string;
  /** Default model of this run's agents. */
  model?: string;
  /** The workflow's stages, in order. */
  phases?: WorkflowPhase[];
}

/**
 * Options of agent(), in both call forms. A key whose value is undefined is
 * absent; any other unknown key, or one the provider cannot honour, ends the
 * run with UNSUPPORTED_OPTION.
 */
interface AgentOptions<S extends JSONSchema | undefined = JSONSchema | undefined> {
  /** Display name in events and the envelope. Default: the prompt's first line, 48 characters. */
  label?: string;
  /** Alias of label (the DSH name). */
  description?: string;
  /** Phase shown in events. Default: the current phase() title. */
  phase?: string;
  /** JSON Schema of the answer (object root). Needs the provider capability outputSchema. */
  schema?: S;
  /** Model of this child. Needs the capability model. */
  model?: string;
  /** Provider-defined reasoning effort, e.g. "low" | "medium" | "high". Needs the capability effort. */
  effort?: string;
  /** Persona name. Needs the capability persona. */
  agentType?: string;
  /** Alias of agentType. */
  persona?: string;
  /** Tool names the child may use; narrows, never widens. Needs the capability toolFilter. */
  tools?: string[];
  /** Turn limit, a positive integer. Needs the capability maxTurns. */
  maxTurns?: number;
  /** Deadline of this child in milliseconds, a positive integer; past it the child ends timed_out. */
  timeoutMs?: number;
  /** Provider-defined isolation, e.g. "worktree". Needs the capability isolation. */
  isolation?: string;
}

/** Options of the object form: the prompt goes into the object. */
interface AgentRequest<S extends JSONSchema | undefined = JSONSchema | undefined> extends AgentOptions<S> {
  /** The task. A non-empty string. */
  prompt: string;
}

/** How a child ended. */
type AgentStatus = "completed" | "failed" | "timed_out" | "cancelled";

/** Why a child did not complete. */
type FailureKind =
  | "upstream_unavailable"
  | "rate_limited"
  | "context_length"
  | "timeout"
  | "invalid_output"
  | "max_turns"
  | "task_failed"
  | "cancelled";

/** What one child consumed. */
interface AgentUsage {
  inputTokens: number;
  outputTokens: number;
  costUSD: number;
}

/** The value of the object form, agent({prompt, ...}). */
interface AgentEnvelope<R = string | object> {
  /** The final text, or the validated object of a schema call; null unless completed. */
  result: R | null;
  status: AgentStatus;
  /** "ag_…", unique within the process. */
  agentId: string;
  label: string;
  usage: AgentUsage;
  /** Set when status is not "completed". */
  error?: string;
  /** Set when status is not "completed". */
  failure?: FailureKind;
  /**
   * With isolation: 'worktree', when the child left changes: the git worktree
   * that holds them. Absent when the worktree was removed (nothing changed).
   */
  worktree?: { path: string; branch: string };
}

/**
 * The answer of a schema call. The declarations cannot derive a type from a
 * JSON Schema, so it is any; annotate it with JSDoc where you want more.
 */
type SchemaAnswer<S> = any;

/**
 * Start a sub-agent with a prompt. Resolves to its final text, or with
 * options.schema to the validated object; to null when the child fails, times
 * out or is cancelled. Misuse (bad arguments, unknown options, the agent cap,
 * a spent budget) ends the run; try/catch cannot catch it.
 */
declare function agent(prompt: string, options?: AgentOptions<undefined>): Promise<string | null>;
declare function agent<S extends JSONSchema>(prompt: string, options: AgentOptions<S> & { schema: S }): Promise<SchemaAnswer<S> | null>;
/**
 * Start a sub-agent, DSH style: one object with the prompt and the options.
 * Always resolves to an envelope; a failed child has result null, status and error.
 */
declare function agent(request: AgentRequest<undefined>): Promise<AgentEnvelope<string>>;
declare function agent<S extends JSONSchema>(request: AgentRequest<S> & { schema: S }): Promise<AgentEnvelope<SchemaAnswer<S>>>;

/**
 * Call every thunk at once and wait for all. Results keep input order; a
 * thunk that throws or rejects yields null in its slot. At most 4096 thunks.
 */
declare function parallel<T extends readonly (() => unknown)[] | []>(
  thunks: T,
): Promise<{ -readonly [K in keyof T]: T[K] extends () => infer R ? Awaited<R> | null : any }>;

/**
 * Pass each item through the stages on its own, with no barrier between
 * stages. A stage gets (prev, item, index); stage one's prev is the item. A
 * stage that throws drops the item to null and skips its remaining stages.
 * Results keep item order. At most 4096 items.
 */
declare function pipeline<I>(items: readonly I[]): Promise<Array<I | null>>;
declare function pipeline<I, A>(
  items: readonly I[],
  s1: (prev: I, item: I, index: number) => A | PromiseLike<A>,
): Promise<Array<A | null>>;
declare function pipeline<I, A, B>(
  items: readonly I[],
  s1: (prev: I, item: I, index: number) => A | PromiseLike<A>,
  s2: (prev: A, item: I, index: number) => B | PromiseLike<B>,
): Promise<Array<B | null>>;
declare function pipeline<I, A, B, C>(
  items: readonly I[],
  s1: (prev: I, item: I, index: number) => A | PromiseLike<A>,
  s2: (prev: A, item: I, index: number) => B | PromiseLike<B>,
  s3: (prev: B, item: I, index: number) => C | PromiseLike<C>,
): Promise<Array<C | null>>;
declare function pipeline<I>(
  items: readonly I[],
  ...stages: Array<(prev: any, item: I, index: number) => unknown>
): Promise<Array<unknown>>;

/** Start a phase: a phase event, and the default phase of later agent() calls. */
declare function phase(title: string): void;

/** A log event: strings as they are, other values as JSON, joined by spaces. */
declare function log(...values: unknown[]): void;

/** Aliases of log; the level is not kept. */
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
};

/** The request's args (--args), verbatim; undefined when absent. */
declare const args: any;

/** The run's token budget. */
declare const budget: {
  /** Tokens the run may spend, or null without a budget. */
  readonly total: number | null;
  /** Input plus output tokens of the children that have ended. */
  spent(): number;
  /** total - spent, at least 0; Infinity without a budget. */
  remaining(): number;
};

/**
 * Run a saved workflow (NAME.js in the workflows folders — --workflows-dir,
 * WORKSPACE/.claude/workflows, WORKSPACE/.wfrun/workflows,
 * ~/.claude/workflows — or the file whose meta has that name) inline,
 * sharing this run's slots, cap, budget and cancellation. One level deep.
 * Resolves to its return value. The object form takes Claude Code's
 * scriptPath (a .js file of the workspace), which wins over name.
 */
declare function workflow<T = any>(name: string, args?: JSONValue): Promise<T>;
declare function workflow<T = any>(ref: { scriptPath?: string; name?: string; args?: JSONValue }, args?: JSONValue): Promise<T>;

/** Available in scripts that start with `export const meta = {…}`: that literal. */
declare const meta: WorkflowMeta;

/**
 * Group items by a key (polyfilled by the sandbox; also in lib.es2024).
 */
interface ObjectConstructor {
  groupBy<T, K extends PropertyKey>(items: Iterable<T>, key: (item: T, index: number) => K): Partial<Record<K, T[]>>;
}
interface MapConstructor {
  groupBy<T, K>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]>;
}

/** Deep copy of plain data, Map, Set, Date, RegExp, Error and typed arrays (polyfilled). */
declare function structuredClone<T>(value: T): T;

/** WHATWG URL (from goja_nodejs). */
declare class URL {
  constructor(url: string, base?: string | URL);
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}

/** WHATWG URLSearchParams (from goja_nodejs). */
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  entries(): IterableIterator<[string, string]>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}

interface PromiseConstructor {
  /** Polyfilled by the sandbox. */
  withResolvers<T>(): { promise: Promise<T>; resolve: (value: T | PromiseLike<T>) => void; reject: (reason?: any) => void };
}
interface ArrayConstructor {
  /** Polyfilled by the sandbox. */
  fromAsync<T>(items: AsyncIterable<T> | Iterable<T | PromiseLike<T>> | ArrayLike<T | PromiseLike<T>>): Promise<T[]>;
}
interface String {
  /** Polyfilled by the sandbox. */
  isWellFormed(): boolean;
  /** Polyfilled by the sandbox. */
  toWellFormed(): string;
}
